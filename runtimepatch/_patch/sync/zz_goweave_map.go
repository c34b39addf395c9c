// Copyright goweave authors. Added to package sync by the goweave overlay.

// goweave hook of sync.Map (runtimepatch/sites_syncmap.go). The runtime
// implements it (push linkname from runtime/zz_goweave_syncmap.go): it
// records the operation of kind on key of m as an atomic event on the
// entry's address when recording is on and pc, the return address in the
// caller of the Map method, is in the module under test.

package sync

// Event kinds of the goweave trace format.
const (
	goweaveKAtomicLoad  = 50
	goweaveKAtomicStore = 51
)

//go:noescape
func goweaveMapOp(kind uint8, m *Map, key any, pc uintptr)
