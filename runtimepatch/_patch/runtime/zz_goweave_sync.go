// Copyright goweave authors. Added to package runtime by the goweave overlay.

// goweave sync hooks. The sync package declares them without bodies; the
// runtime provides them with push linknames. Sync objects are passed by
// address to functions sync declares //go:noescape, so a mutex on the stack
// stays there; their ids live outside them (zz_goweave_objid.go).

package runtime

import (
	"internal/runtime/atomic"
	"unsafe"
)

// goweaveSyncPre opens a record for a sync operation of the given kind on the
// sync object at obj, called at return address pc: the pre hook of
// every sync method. It returns the record handle, 0 when not recorded.
//
//go:linkname goweaveSyncPre sync.goweaveSyncPre
func goweaveSyncPre(kind, flags uint8, obj unsafe.Pointer, pc uintptr, a, b uint64) uintptr {
	if !goweaveOn {
		return 0
	}
	gp := getg()
	if kind == goweaveKRUnlock {
		goweaveReadUnlocked(gp, obj) // zz_goweave_stuck.go; recorded or not
	}
	pos := goweavePosOf(pc)
	if pos == 0 {
		if gp.goweave.attrBits == 0 {
			return 0
		}
		pos = goweaveAttributed(gp, kind)
		if pos == 0 {
			return 0
		}
		flags |= goweaveFInternal
	} else {
		goweaveBefore(gp, kind, pos)
	}
	h := goweaveOpen(gp, kind, flags, pos, goweaveSyncID(gp, obj))
	if h == 0 {
		return 0
	}
	e := goweaveRec(h)
	e.a, e.b = a, b
	if kind == goweaveKLock || kind == goweaveKRLock {
		goweaveLockWaitStart(gp, e.obj) // zz_goweave_stuck.go
	}
	return uintptr(h)
}

// goweaveSyncPost completes record h now (a lock acquired, a wait returned).
//
//go:linkname goweaveSyncPost sync.goweaveSyncPost
func goweaveSyncPost(h uintptr, flags uint8) {
	if h == 0 {
		return
	}
	e := goweaveRec(uint64(h))
	e.flags |= flags
	e.post = goweaveNextStamp()
	if e.kind == goweaveKLock || e.kind == goweaveKRLock {
		goweaveLocked(getg(), e.obj, e.kind == goweaveKLock, e.post)
	}
}

// goweaveSyncAt completes record h at its pre stamp (the operation took
// effect when it was requested: Unlock before the release, Add before the
// counter changes), storing b.
//
//go:linkname goweaveSyncAt sync.goweaveSyncAt
func goweaveSyncAt(h uintptr, b uint64) {
	if h == 0 {
		return
	}
	e := goweaveRec(uint64(h))
	e.b = b
	e.post = e.pre
	if e.kind == goweaveKUnlock {
		goweaveUnlocked(getg(), e.obj)
	}
}

// goweaveSyncTry completes a TryLock/TryRLock: both stamps are taken after
// the attempt, so a successful try is ordered after the unlock it follows.
//
//go:linkname goweaveSyncTry sync.goweaveSyncTry
func goweaveSyncTry(h uintptr, ok bool) {
	if h == 0 {
		return
	}
	e := goweaveRec(uint64(h))
	e.flags |= goweaveFNonBlocking
	if ok {
		e.flags |= goweaveFSuccess
		if e.kind == goweaveKTryLock || e.kind == goweaveKTryRLock {
			goweaveLocked(getg(), e.obj, e.kind == goweaveKTryLock, goweaveStampNow())
		}
	}
	e.pre = goweaveNextStamp()
	e.post = e.pre
}

// goweaveSyncFlag adds flags to record h (Once.Do: this call runs f).
//
//go:linkname goweaveSyncFlag sync.goweaveSyncFlag
func goweaveSyncFlag(h uintptr, flags uint8) {
	if h != 0 {
		goweaveRec(uint64(h)).flags |= flags
	}
}

// goweaveCondWaitPre opens a CondWait record and attributes the Unlock and
// Lock of the Cond's Locker inside Wait to the user's call site.
//
//go:linkname goweaveCondWaitPre sync.goweaveCondWaitPre
func goweaveCondWaitPre(obj, locker unsafe.Pointer, ticket uint32, pc uintptr) uintptr {
	if !goweaveOn {
		return 0
	}
	h := goweaveSyncPre(goweaveKCondWait, 0, obj, pc, uint64(ticket), goweaveSyncID(getg(), locker))
	if h != 0 {
		gp := getg()
		gp.goweave.attrPC = pc
		gp.goweave.attrBits |= goweaveAttrAcquire | goweaveAttrRelease
	}
	return h
}

// goweaveAttrDone ends the attribution opened by goweaveCondWaitPre.
//
//go:linkname goweaveAttrDone sync.goweaveAttrDone
func goweaveAttrDone() {
	if goweaveOn {
		getg().goweave.attrBits &^= goweaveAttrAcquire | goweaveAttrRelease
	}
}

// goweaveCondNotify records Signal/Broadcast with the notifyList tickets
// before the call: a = next ticket to notify, b = next ticket to hand out.
//
//go:linkname goweaveCondNotify sync.goweaveCondNotify
func goweaveCondNotify(kind uint8, obj unsafe.Pointer, l *notifyList, pc uintptr) {
	if !goweaveOn {
		return
	}
	h := goweaveSyncPre(kind, 0, obj, pc, uint64(atomic.Load(&l.notify)), uint64(l.wait.Load()))
	if h != 0 {
		e := goweaveRec(uint64(h))
		e.post = e.pre
	}
}

// goweaveSpawnVia attributes the next goroutine the current goroutine starts
// to the user call at pc (WaitGroup.Go).
//
//go:linkname goweaveSpawnVia sync.goweaveSpawnVia
func goweaveSpawnVia(pc uintptr) {
	if goweaveOn && goweavePosOf(pc) != 0 {
		getg().goweave.spawnPC = pc
	}
}
