// Copyright goweave authors. Added to package sync by the goweave overlay.

// goweave hooks of package sync. The runtime implements the bodyless
// functions below (push linknames from runtime/zz_goweave_sync.go). Object
// ids are passed as *uint64 with //go:noescape: a Mutex that does not escape
// stays on the stack, and stack copying keeps the pointer valid.

package sync

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
func goweaveSyncPre(kind, flags uint8, id *uint64, pc uintptr, a, b uint64) uintptr

func goweaveSyncPost(h uintptr, flags uint8)

func goweaveSyncAt(h uintptr, b uint64)

func goweaveSyncTry(h uintptr, ok bool)

func goweaveSyncFlag(h uintptr, flags uint8)

//go:noescape
func goweaveCondWaitPre(id, lockerID *uint64, ticket uint32, pc uintptr) uintptr

func goweaveAttrDone()

//go:noescape
func goweaveCondNotify(kind uint8, id *uint64, l *notifyList, pc uintptr)

func goweaveSpawnVia(pc uintptr)

// goweaveLockerID returns where the object id of a Cond's Locker lives, when
// it is a Mutex or RWMutex.
func goweaveLockerID(l Locker) *uint64 {
	switch m := l.(type) {
	case *Mutex:
		return &m.goweaveID
	case *RWMutex:
		return &m.goweaveID
	}
	return nil
}

// goweaveWgCounter is the WaitGroup counter in a state word.
func goweaveWgCounter(state uint64) uint64 {
	return uint64(int64(int32(state >> 32)))
}
