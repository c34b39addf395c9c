// Copyright goweave authors. Added to package sync by the goweave overlay.

// goweave hooks of package sync. The runtime implements the bodyless
// functions below (push linknames from runtime/zz_goweave_sync.go). Sync
// objects are passed by address with //go:noescape: a Mutex that does not
// escape stays on the stack. The runtime keeps their ids outside them
// (runtime/zz_goweave_objid.go), so every sync type keeps its stock size.

package sync

import "unsafe"

// Event kinds of the goweave trace format.
const (
	goweaveKLock          = 10
	goweaveKUnlock        = 11
	goweaveKTryLock       = 12
	goweaveKRLock         = 13
	goweaveKRUnlock       = 14
	goweaveKTryRLock      = 15
	goweaveKOnceDo        = 20
	goweaveKWgAdd         = 30
	goweaveKWgDone        = 31
	goweaveKWgWait        = 32
	goweaveKCondWait      = 40
	goweaveKCondSignal    = 41
	goweaveKCondBroadcast = 42

	goweaveFSuccess = 0x20
	goweaveFRW      = 0x40
)

//go:noescape
func goweaveSyncPre(kind, flags uint8, obj unsafe.Pointer, pc uintptr, a, b uint64) uintptr

func goweaveSyncPost(h uintptr, flags uint8)

func goweaveSyncAt(h uintptr, b uint64)

func goweaveSyncTry(h uintptr, ok bool)

func goweaveSyncFlag(h uintptr, flags uint8)

//go:noescape
func goweaveCondWaitPre(obj, locker unsafe.Pointer, ticket uint32, pc uintptr) uintptr

func goweaveAttrDone()

//go:noescape
func goweaveCondNotify(kind uint8, obj unsafe.Pointer, l *notifyList, pc uintptr)

func goweaveSpawnVia(pc uintptr)

// goweaveObj is the address of sync object p, as the hooks take it (the
// patched methods' files need not import unsafe).
func goweaveObj[T any](p *T) unsafe.Pointer { return unsafe.Pointer(p) }

// goweaveLocker is the address of a Cond's Locker, when it is a Mutex or
// RWMutex (whose operations are recorded), else nil.
func goweaveLocker(l Locker) unsafe.Pointer {
	switch m := l.(type) {
	case *Mutex:
		return unsafe.Pointer(m)
	case *RWMutex:
		return unsafe.Pointer(m)
	}
	return nil
}

// goweaveWgCounter is the WaitGroup counter in a state word.
func goweaveWgCounter(state uint64) uint64 {
	return uint64(int64(int32(state >> 32)))
}
