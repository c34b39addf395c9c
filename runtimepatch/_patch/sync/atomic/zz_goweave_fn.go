// Copyright goweave authors. Added to package sync/atomic by the goweave overlay.

// goweave's view of sync/atomic's functions (runtimepatch/sites_atomicfn.go).
// The overlay gives each function a Go body that calls goweaveFnPre, the
// original implementation, renamed goweaveNAME (declared below; assembly in
// asm.s and runtime/race_*.s, Go in runtime/atomic_pointer.go), then
// goweaveFnPost. The hooks are the runtime's (push linknames from
// runtime/zz_goweave_atomicfn.go).

package atomic

import "unsafe"

// Event kinds of the goweave trace format.
const (
	goweaveKAtomicLoad  = 50
	goweaveKAtomicStore = 51
	goweaveKAtomicRMW   = 52
)

//go:noescape
func goweaveFnPre(kind uint8, p unsafe.Pointer, pc uintptr)

//go:noescape
func goweaveFnPost(kind uint8, p unsafe.Pointer, pc uintptr)

// The original implementations.

//go:noescape
func goweaveSwapInt32(addr *int32, new int32) (old int32)

//go:noescape
func goweaveSwapUint32(addr *uint32, new uint32) (old uint32)

//go:noescape
func goweaveSwapUintptr(addr *uintptr, new uintptr) (old uintptr)

func goweaveSwapPointer(addr *unsafe.Pointer, new unsafe.Pointer) (old unsafe.Pointer)

//go:noescape
func goweaveCompareAndSwapInt32(addr *int32, old, new int32) (swapped bool)

//go:noescape
func goweaveCompareAndSwapUint32(addr *uint32, old, new uint32) (swapped bool)

//go:noescape
func goweaveCompareAndSwapUintptr(addr *uintptr, old, new uintptr) (swapped bool)

func goweaveCompareAndSwapPointer(addr *unsafe.Pointer, old, new unsafe.Pointer) (swapped bool)

//go:noescape
func goweaveAddInt32(addr *int32, delta int32) (new int32)

//go:noescape
func goweaveAddUint32(addr *uint32, delta uint32) (new uint32)

//go:noescape
func goweaveAddUintptr(addr *uintptr, delta uintptr) (new uintptr)

//go:noescape
func goweaveAndInt32(addr *int32, mask int32) (old int32)

//go:noescape
func goweaveAndUint32(addr *uint32, mask uint32) (old uint32)

//go:noescape
func goweaveAndUintptr(addr *uintptr, mask uintptr) (old uintptr)

//go:noescape
func goweaveOrInt32(addr *int32, mask int32) (old int32)

//go:noescape
func goweaveOrUint32(addr *uint32, mask uint32) (old uint32)

//go:noescape
func goweaveOrUintptr(addr *uintptr, mask uintptr) (old uintptr)

//go:noescape
func goweaveLoadInt32(addr *int32) (val int32)

//go:noescape
func goweaveLoadUint32(addr *uint32) (val uint32)

//go:noescape
func goweaveLoadUintptr(addr *uintptr) (val uintptr)

func goweaveLoadPointer(addr *unsafe.Pointer) (val unsafe.Pointer)

//go:noescape
func goweaveStoreInt32(addr *int32, val int32)

//go:noescape
func goweaveStoreUint32(addr *uint32, val uint32)

//go:noescape
func goweaveStoreUintptr(addr *uintptr, val uintptr)

func goweaveStorePointer(addr *unsafe.Pointer, val unsafe.Pointer)

//go:noescape
func goweaveSwapInt64(addr *int64, new int64) (old int64)

//go:noescape
func goweaveSwapUint64(addr *uint64, new uint64) (old uint64)

//go:noescape
func goweaveCompareAndSwapInt64(addr *int64, old, new int64) (swapped bool)

//go:noescape
func goweaveCompareAndSwapUint64(addr *uint64, old, new uint64) (swapped bool)

//go:noescape
func goweaveAddInt64(addr *int64, delta int64) (new int64)

//go:noescape
func goweaveAddUint64(addr *uint64, delta uint64) (new uint64)

//go:noescape
func goweaveAndInt64(addr *int64, mask int64) (old int64)

//go:noescape
func goweaveAndUint64(addr *uint64, mask uint64) (old uint64)

//go:noescape
func goweaveOrInt64(addr *int64, mask int64) (old int64)

//go:noescape
func goweaveOrUint64(addr *uint64, mask uint64) (old uint64)

//go:noescape
func goweaveLoadInt64(addr *int64) (val int64)

//go:noescape
func goweaveLoadUint64(addr *uint64) (val uint64)

//go:noescape
func goweaveStoreInt64(addr *int64, val int64)

//go:noescape
func goweaveStoreUint64(addr *uint64, val uint64)
