// Copyright goweave authors. Added to package runtime by the goweave overlay.

// Stuck runs told by the program's state, not by the clock. Under -race the
// runtime's own "all goroutines are asleep" check never fires, so without
// this a deadlocked run waits for goweave's time limit. Armed with the time
// limit (GOWEAVE_TIMELIMIT; GOWEAVE_STUCK=0 disarms it), the time limit's
// thread (zz_goweave_timelimit.go) ticks every goweaveStuckTickNs and reads
// the recorder's stamp counter; only while nothing was stamped since its last
// tick does it look at the goroutines (a pass over allgs, no lock), and every
// goweaveCycleEvery-th tick whatever the stamps do, for lock cycles:
//
//   - global: every user goroutine blocked on a channel, select or sync
//     primitive, none running, runnable, in a system call, in
//     the network poller, sleeping or parked by goweave's schedule, and no
//     timer on any P that could wake user code; two quiet ticks in a row.
//   - lockcycle: goroutines parked in Lock/RLock, each waiting for the next
//     (zz_goweave_sync.go keeps who holds what): for a mutex's write holder;
//     with none, in Lock of an RWMutex for its readers, in RLock for a writer
//     parked in Lock of it (a pending writer blocks new readers); the same
//     cycle on two checks in a row, whatever the rest of the program does.
//     A holder counts only if it is known to be the unlocker: its mutex was
//     never unlocked by another goroutine than its locker in this run, and
//     if the holder passed something on since it locked it (a message, a
//     go statement, another mutex's Unlock: it may have handed the mutex
//     on), everyone who may have got it is a goroutine of the cycle
//     (zz_goweave_handoff.go); a
//     goroutine waiting for a mutex it holds itself is the one case where
//     another goroutine unlocking it is a known pattern (a mutex used as a
//     semaphore), so that cycle of one needs the GC's leak detection to
//     prove it (Go 1.26+; on Go 1.25 it waits for the time limit).
//   - leaked (Go 1.26+): the test goroutine (main's for an Example) parked
//     on an operation with no event of its own for a quiet window, whatever
//     other goroutines do: the watch goroutine runs the GC's leak detection;
//     if the test goroutine leaked, nothing can ever wake it. A negative
//     check doubles the window.
//
// A stuck run ends as one stopped at its time limit does (leak GC, trace,
// SIGQUIT and the goroutine dump), with META stuck=<kind> and a "fatal error:
// goweave: deadlock: ..." line the fuzzer classifies as a deadlock. Nothing
// here runs on a goroutine's path but the lock bookkeeping (a few stores per
// recorded Lock/Unlock).
//
// The same tick keeps the progress record (GOWEAVE_PROGRESS,
// runtimepatch/progress.go) for the supervisor.

package runtime

import (
	"internal/runtime/atomic"
	"unsafe"
)

const (
	// goweaveStuckTickNs: how often the thread looks. Two quiet ticks
	// declare a global deadlock, so one is found 30-45 ms after it forms.
	goweaveStuckTickNs = 15_000_000
	// goweaveCycleEvery: lock cycles are looked for on every quiet tick
	// and on every goweaveCycleEvery-th tick while goroutines stamp.
	goweaveCycleEvery = 4
	// The partial check's quiet window: first goweavePartialFirstNs, then
	// doubled after each negative leak check up to goweavePartialMaxNs.
	goweavePartialFirstNs = 150_000_000
	goweavePartialMaxNs   = 2_000_000_000
	// goweaveCostFactor bounds the check's CPU share: after a pass over the
	// goroutines or a leak check that took d, the next waits at least
	// goweaveCostFactor*d (at most 1/goweaveCostFactor of one CPU).
	goweaveCostFactor = 25
	// goweaveMaxLockWaits bounds the goroutines parked in Lock looked at
	// for a cycle.
	goweaveMaxLockWaits = 64
	// goweaveHeldBits: size of the lock holder table (by object id).
	goweaveHeldBits = 14
	// goweaveMaxRHeld: the read locks a goroutine is known to hold at once
	// (more are not tracked: their mutexes are tainted).
	goweaveMaxRHeld = 4
	// goweaveRTaintBits: size of the table of RWMutexes whose readers are
	// not known (by object id).
	goweaveRTaintBits = 12
	// goweaveMaxCarriers bounds the goroutines that heard a tag looked at.
	goweaveMaxCarriers = 64

	goweaveProgressSize = 64
)

// What a stuck run was found to be (META stuck).
const (
	goweaveStuckNone = iota
	goweaveStuckGlobal
	goweaveStuckLockCycle
	goweaveStuckLeaked
)

var goweaveStuck struct {
	on         bool
	exiting    atomic.Bool   // the exit hook runs: the program is done, nothing more to find
	kind       atomic.Uint32 // goweaveStuck*: set once, when declared
	ticks      uint64
	lastStamp  uint64
	quietSince int64  // nanotime of the tick that last saw the stamp move
	quietNs    int64  // at the declaration: how long nothing had been stamped
	withinNs   int64  // at the declaration: the stuck state formed at most this long before
	lastLook   int64  // nanotime of the last look at the goroutines
	cycleSince int64  // the last look before the current cycle was first seen
	testLast   uint64 // the test goroutine's newest event when last seen blocked
	testSince  int64  // the last look before it was first seen blocked after that event
	globalSeen int    // consecutive quiet ticks with every goroutine blocked
	cycleSig   uint64
	cycle      [goweaveMaxLockWaits]uint64 // goids on the cycle (META stuck.goroutines)
	ncycle     int
	window     int64       // the partial check's current quiet window
	nextLeak   int64       // no partial check before this nanotime
	nextScan   int64       // no pass over the goroutines before this nanotime
	leakBusy   atomic.Bool // the watch goroutine runs a leak check
	leakChecks uint32      // leak checks run (META stuck.leakchecks)
	selfCheck  bool        // the leak check is for a goroutine waiting for a mutex it holds (cycle[0])
	selfGoid   uint64      // that goroutine
	nextSelf   int64       // no such check before this nanotime
	progress   uintptr     // the mapped progress record, 0 = none
	held       uintptr     // [1<<goweaveHeldBits]goweaveHeld, mmap'd
	// scratch of goweaveLockCycle (the check thread's only): per goroutine
	// parked in Lock/RLock, the read locks it holds, the goroutines it waits
	// for and those it reaches (bit j: the scan's j-th); of a waiter's edge
	// to a holder that passed a tag since it locked, the goroutines that
	// must be on the cycle (need) and the edge (cond)
	waitRH [goweaveMaxLockWaits][goweaveMaxRHeld]uint64
	adj    [goweaveMaxLockWaits]uint64
	reach  [goweaveMaxLockWaits]uint64
	need   [goweaveMaxLockWaits]uint64
	cond   [goweaveMaxLockWaits]uint64
	// the live goroutines that heard a tag (zz_goweave_handoff.go), as of
	// the last scan: goid, what they heard, when, and their waiter index
	// (-1: not parked in a recorded Lock/RLock)
	ncarry   int
	carryG   [goweaveMaxCarriers]uint64
	carryT   [goweaveMaxCarriers]uint64
	carryAt  [goweaveMaxCarriers]uint64
	carryW   [goweaveMaxCarriers]int
	carryAll bool // more carriers than kept: every passed holder is uncertain
}

// goweaveRTaint holds the RWMutexes whose readers are not all known: one was
// read-unlocked by a goroutine not known to hold it (a read lock handed to
// another goroutine, an RLock that was not recorded) or read-locked by a
// goroutine holding goweaveMaxRHeld already. Their readers give no edge of a
// lock cycle. A slot hit by two ids holds ^0: every id of the slot is tainted.
var goweaveRTaint [1 << goweaveRTaintBits]uint64

// goweaveHTaint holds the mutexes write-unlocked at least once in this run by
// a goroutine other than their locker (a lock handed off, legal in Go): their
// locker is not the one who unlocks them, so it gives no edge of a lock
// cycle. Same slot rule as goweaveRTaint.
var goweaveHTaint [1 << goweaveRTaintBits]uint64

// goweaveHeld says which goroutine write-holds the mutex with object id id
// (goid 0: none, the slot keeps the tag its last unlocker left for the next
// locker), and the stamp at which it locked it: a holder that passed a tag
// since may have handed the mutex on (prometheus/client_golang's summary
// hands mtx to a flusher it starts; zz_goweave_handoff.go).
type goweaveHeld struct {
	id   uint64
	goid uint64
	at   uint64
	tag  uint64 // the tag, and its bits counted in goweaveTagPend
	own  uint64
}

// goweaveStuckInit arms the detection; called from the time limit's init.
func goweaveStuckInit() {
	if gogetenv("GOWEAVE_STUCK") == "0" {
		return
	}
	goweaveStuck.held = goweaveMap((1 << goweaveHeldBits) * unsafe.Sizeof(goweaveHeld{}))
	if goweaveStuck.held == 0 {
		return
	}
	goweaveStuck.window = goweavePartialFirstNs
	goweaveStuck.lastLook = nanotime()
	goweaveProgressOpen(gogetenv("GOWEAVE_PROGRESS"))
	goweaveStuck.on = true
}

var goweaveProgressPath [4096]byte

// goweaveProgressOpen maps the progress record of path shared. The file is
// truncated and written whole first, so the mapping has a page behind it.
func goweaveProgressOpen(path string) {
	if path == "" || len(path) >= len(goweaveProgressPath) {
		return
	}
	copy(goweaveProgressPath[:], path)
	goweaveProgressPath[len(path)] = 0
	fd := open(&goweaveProgressPath[0], goweaveORdwr|_O_CREAT|_O_TRUNC|goweaveOCloexec, 0o644)
	if fd < 0 {
		print("goweave: cannot create progress file ", path, "\n")
		return
	}
	var rec [goweaveProgressSize]byte
	copy(rec[:], "GWPROG01")
	if write1(uintptr(fd), unsafe.Pointer(&rec[0]), goweaveProgressSize) != goweaveProgressSize {
		closefd(fd)
		return
	}
	p, err := mmap(nil, goweaveProgressSize, _PROT_READ|_PROT_WRITE, goweaveMapShared, fd, 0)
	closefd(fd)
	if err != 0 {
		return
	}
	goweaveStuck.progress = uintptr(p)
}

// goweaveProgressWrite updates the record: events, ticks, flags.
//
//go:nowritebarrierrec
func goweaveProgressWrite(events, flags uint64) {
	p := goweaveStuck.progress
	if p == 0 {
		return
	}
	atomic.Store64((*uint64)(unsafe.Pointer(p+8)), events)
	atomic.Store64((*uint64)(unsafe.Pointer(p+16)), goweaveStuck.ticks)
	atomic.Store64((*uint64)(unsafe.Pointer(p+24)), flags)
}

// Progress flags (runtimepatch/progress.go).
const (
	goweaveProgressTimer    = 1
	goweaveProgressRunnable = 2
)

// Lock bookkeeping, from the sync hooks of recorded operations.

func goweaveHeldAt(id uint64) *goweaveHeld {
	return (*goweaveHeld)(unsafe.Pointer(goweaveStuck.held + uintptr(id&(1<<goweaveHeldBits-1))*unsafe.Sizeof(goweaveHeld{})))
}

// goweaveLockWaitStart notes that gp requests the mutex obj (Lock, RLock).
func goweaveLockWaitStart(gp *g, obj uint64) {
	if goweaveStuck.on {
		gp.goweave.lockWait = obj
	}
}

// goweaveLocked notes that gp acquired obj at stamp at: write-held when
// write, else read-held by gp.
func goweaveLocked(gp *g, obj uint64, write bool, at uint64) {
	if !goweaveStuck.on {
		return
	}
	gp.goweave.lockWait = 0
	h := goweaveHeldAt(obj)
	goweaveTagLocked(gp, obj, h)
	if write {
		gp.goweave.wheld++
		atomic.Store64(&h.goid, gp.goid)
		atomic.Store64(&h.at, at)
		atomic.Store64(&h.id, obj)
		return
	}
	for i := range gp.goweave.rheld {
		if atomic.Load64(&gp.goweave.rheld[i]) == 0 {
			atomic.Store64(&gp.goweave.rheld[i], obj)
			return
		}
	}
	goweaveTaintReaders(obj)
}

// goweaveReadUnlocked notes that gp read-unlocks the RWMutex at rw (before the release: until then it may still look read-held).
func goweaveReadUnlocked(gp *g, rw unsafe.Pointer) {
	if !goweaveStuck.on {
		return
	}
	obj := goweaveSyncIDPeek(gp, rw)
	if obj == 0 {
		return // never recorded: read-held by no one the check knows
	}
	for i := len(gp.goweave.rheld) - 1; i >= 0; i-- {
		if atomic.Load64(&gp.goweave.rheld[i]) == obj {
			atomic.Store64(&gp.goweave.rheld[i], 0)
			return
		}
	}
	goweaveTaintReaders(obj)
}

func goweaveTaintReaders(obj uint64) { goweaveTaint(&goweaveRTaint, obj) }

// goweaveMayPass notes a go statement of gp starting child (when pass): a
// chance to hand a mutex it holds to the new goroutine.
func goweaveMayPass(gp, child *g, pass bool) {
	if pass && goweaveStuck.on {
		goweaveHandSpawn(gp, child)
	}
}

func goweaveTaint(t *[1 << goweaveRTaintBits]uint64, obj uint64) {
	p := &t[obj&(1<<goweaveRTaintBits-1)]
	for {
		old := atomic.Load64(p)
		if old == obj || old == ^uint64(0) {
			return
		}
		v := obj
		if old != 0 {
			v = ^uint64(0)
		}
		if atomic.Cas64(p, old, v) {
			return
		}
	}
}

//go:nowritebarrierrec
func goweaveReadersTainted(obj uint64) bool { return goweaveTainted(&goweaveRTaint, obj) }

//go:nowritebarrierrec
func goweaveTainted(t *[1 << goweaveRTaintBits]uint64, obj uint64) bool {
	v := atomic.Load64(&t[obj&(1<<goweaveRTaintBits-1)])
	return v == obj || v == ^uint64(0)
}

// goweaveUnlocked notes the write-unlock of obj by gp: the holder entry
// goes, so a mutex handed to another goroutine to unlock leaves no stale
// holder; unlocked by another goroutine than its locker, obj is tainted
// (goweaveHTaint) for the rest of the run.
func goweaveUnlocked(gp *g, obj uint64) {
	if !goweaveStuck.on {
		return
	}
	if h := goweaveHeldAt(obj); atomic.Load64(&h.id) == obj {
		if atomic.Load64(&h.goid) != gp.goid {
			goweaveTaint(&goweaveHTaint, obj)
		} else if gp.goweave.wheld > 0 {
			gp.goweave.wheld--
		}
		if !goweaveHandUnlock(gp, h) {
			atomic.Store64(&h.id, 0)
		}
	}
}

// goweaveHolder returns the goid write-holding obj (0 when unknown) and the
// stamp at which it locked obj.
//
//go:nowritebarrierrec
func goweaveHolder(obj uint64) (uint64, uint64) {
	h := goweaveHeldAt(obj)
	if atomic.Load64(&h.id) != obj {
		return 0, 0
	}
	goid, at := atomic.Load64(&h.goid), atomic.Load64(&h.at)
	if atomic.Load64(&h.id) != obj {
		return 0, 0
	}
	return goid, at
}

// The check.

// goweaveBlockedReason reports whether a goroutine waiting for reason waits
// on a channel, select or sync primitive: only another goroutine wakes it.
//
//go:nowritebarrierrec
func goweaveBlockedReason(r waitReason) bool {
	switch r {
	case waitReasonChanReceive, waitReasonChanSend, waitReasonChanReceiveNilChan, waitReasonChanSendNilChan,
		waitReasonSelect, waitReasonSelectNoCases, waitReasonSyncCondWait, waitReasonSyncMutexLock,
		waitReasonSyncRWMutexRLock, waitReasonSyncRWMutexLock, waitReasonSyncWaitGroupWait:
		return true
	}
	// Not waitReasonSemacquire: the sync types have reasons of their own; a plain
	// semaphore wait is the runtime's (a GC cycle's start, stopping the world, an
	// os.File's fdMutex), which ends by itself. TestNotStuckAfterFunc was declared
	// stuck with its main goroutine waiting for the exit's leak GC to start.
	return false
}

func goweaveLockReason(r waitReason) bool {
	return r == waitReasonSyncMutexLock || r == waitReasonSyncRWMutexLock || r == waitReasonSyncRWMutexRLock
}

// goweaveScan is what one pass over the goroutines saw.
type goweaveScan struct {
	progress  bool // a user goroutine can move on by itself (or we cannot tell)
	blocked   int  // user goroutines blocked on an operation
	testFound bool
	testOp    bool   // the test goroutine is blocked on an operation
	testLast  uint64 // its newest event's handle
	nwait     int
	waitG     [goweaveMaxLockWaits]uint64 // goroutines parked on a recorded Lock/RLock
	waitL     [goweaveMaxLockWaits]uint64 // and the mutex each waits for
	waitR     [goweaveMaxLockWaits]bool   // parked in RLock (else in Lock)
	waitP     [goweaveMaxLockWaits]uint64 // the stamp of the goroutine's last pass of a tag
}

// goweaveScanGs looks at every goroutine without a lock (allgs only grows;
// one added meanwhile is running, and the next tick sees it).
//
//go:nowritebarrierrec
func goweaveScanGs(s *goweaveScan, testGoid uint64, locks bool) {
	st := &goweaveStuck
	st.ncarry, st.carryAll = 0, false
	ptr, n := atomicAllG()
	for i := uintptr(0); i < n; i++ {
		gp := atomicAllGIndex(ptr, i)
		status := readgstatus(gp) &^ _Gscan
		if status == _Gdead || status == _Gidle || status == goweaveGdeadextra {
			continue
		}
		blocked, widx := false, -1
		if status == _Gwaiting || status == goweaveGleaked {
			r := gp.waitreason
			blocked = goweaveBlockedReason(r) && gp.goweave.s.wstate == goweaveWaitNone
			if blocked && locks && gp.goweave.lockWait != 0 && goweaveLockReason(r) && s.nwait < goweaveMaxLockWaits {
				widx = s.nwait
				s.waitG[s.nwait], s.waitL[s.nwait] = gp.goid, gp.goweave.lockWait
				s.waitR[s.nwait] = r == waitReasonSyncRWMutexRLock
				s.waitP[s.nwait] = gp.goweave.passAt
				for k := range gp.goweave.rheld {
					st.waitRH[s.nwait][k] = atomic.Load64(&gp.goweave.rheld[k])
				}
				s.nwait++
			}
		}
		// a goroutine that may carry a mutex handed to it (zz_goweave_handoff.go)
		if heard := gp.goweave.heard; heard != 0 && locks {
			if st.ncarry == goweaveMaxCarriers {
				st.carryAll = true
			} else {
				k := st.ncarry
				st.carryG[k], st.carryT[k], st.carryAt[k], st.carryW[k] = gp.goid, heard, gp.goweave.heardAt, widx
				st.ncarry++
			}
		}
		if gp.goid == testGoid {
			s.testFound, s.testOp, s.testLast = true, blocked, gp.goweave.last
		}
		if blocked {
			s.blocked++
			continue
		}
		// Running, runnable, in a system call, sleeping, in the network
		// poller, parked by the schedule, or a wait of the runtime's own.
		if !s.progress && !isSystemGoroutine(gp, false) {
			s.progress = true
		}
	}
}

// goweaveWakingTimer reports whether a timer is pending on any P that could
// wake user code: any but the scavenger's.
//
//go:nowritebarrierrec
func goweaveWakingTimer() bool {
	lock(&allpLock) // a consistent slice; not held with a P's timers lock (lock ranks)
	ps := allp
	unlock(&allpLock)
	for _, pp := range ps {
		if pp == nil || pp.timers.len.Load() == 0 {
			continue
		}
		found := false
		lock(&pp.timers.mu)
		for _, tw := range pp.timers.heap {
			t := tw.timer
			if t == nil || t.state&timerZombie != 0 {
				continue
			}
			if efaceOf(&t.arg).data == unsafe.Pointer(&scavenger) {
				continue
			}
			found = true
			break
		}
		unlock(&pp.timers.mu)
		if found {
			return true
		}
	}
	return false
}

// goweaveLockCycle finds goroutines parked in Lock/RLock that wait for each
// other and returns a signature of the cycle (0: none). A goroutine parked
// on a mutex waits for its write holder; with none, one parked in Lock of an
// RWMutex waits for every goroutine read-holding it, and one parked in RLock
// for the goroutines parked in Lock of it (a pending writer blocks new
// readers; one waiting behind it waits for the same readers). Each edge is a
// goroutine that must move first, so goroutines waiting for each other in a
// circle never move. The cycle reported is the strongly connected set of the
// first goroutine found on one.
//
//go:nowritebarrierrec
func goweaveLockCycle(s *goweaveScan) uint64 {
	st := &goweaveStuck
	n := s.nwait
	for i := 0; i < n; i++ {
		st.adj[i], st.need[i], st.cond[i] = 0, 0, 0
		l := s.waitL[i]
		if h, at := goweaveHolder(l); h != 0 {
			// The holder waits for the next only if it is the one who
			// unlocks l: l was never handed off in this run, and whoever
			// may have got l from the holder since it locked it is on the
			// cycle (goweaveMayHave; a hand-off is seen only at its
			// Unlock). A goroutine waiting for a mutex it locked is proved
			// by the GC instead.
			for j := 0; j < n; j++ {
				if s.waitG[j] != h {
					continue
				}
				if j == i {
					st.adj[i] |= 1 << j
				} else if !goweaveTainted(&goweaveHTaint, l) {
					if s.waitP[j] < at { // passed nothing on since it locked l
						st.adj[i] |= 1 << j
					} else if need, ok := goweaveMayHave(h, at); ok {
						st.adj[i] |= 1 << j
						st.need[i], st.cond[i] = need, 1<<j
					}
				}
			}
			continue
		}
		if goweaveReadersTainted(l) {
			continue
		}
		for j := 0; j < n; j++ {
			switch {
			case s.waitR[i]: // behind the writers pending on l
				if j != i && s.waitL[j] == l && !s.waitR[j] {
					st.adj[i] |= 1 << j
				}
			default: // for l's readers
				for _, r := range st.waitRH[j] {
					if r == l {
						st.adj[i] |= 1 << j
					}
				}
			}
		}
	}
	// A cycle whose edge to a holder needs goroutines off it is no cycle:
	// that edge goes and the cycles are looked for again (edges only go, at
	// most n times).
	for {
		i, members := goweaveCycleOf(n)
		if i < 0 {
			return 0
		}
		ok := true
		for k := 0; k < n; k++ {
			if members&(1<<k) != 0 && st.need[k]&^members != 0 {
				st.adj[k] &^= st.cond[k]
				st.need[k], st.cond[k] = 0, 0
				ok = false
			}
		}
		if ok {
			return goweaveCycleSig(s, i, members)
		}
	}
}

// goweaveMayHave tells who may have got a mutex goroutine h locked at stamp
// at and passed something on since: ok false when someone off the lock
// waiters may have (a tagged message or Unlock no one took yet, a carrier
// that is not parked in a recorded Lock), else the waiters that may have
// (bit k: the scan's k-th), which must all be on the cycle.
//
//go:nowritebarrierrec
func goweaveMayHave(h, at uint64) (need uint64, ok bool) {
	st := &goweaveStuck
	bit := goweaveBit(h)
	if st.carryAll || goweaveTagPend[h&63].Load() > 0 {
		return 0, false
	}
	fwd := goweaveTagPendFwd.Load() > 0
	for k := 0; k < st.ncarry; k++ {
		if st.carryT[k]&bit == 0 || st.carryAt[k] < at {
			continue // did not hear h since it locked
		}
		if st.carryW[k] < 0 || fwd {
			// off the waiters; or a tag passed on waits untaken in a
			// buffer or mutex, and whose is not kept
			return 0, false
		}
		need |= 1 << st.carryW[k]
	}
	return need, true
}

// goweaveCycleOf returns a goroutine on a cycle of st.adj (-1: none) and its
// strongly connected set.
//
//go:nowritebarrierrec
func goweaveCycleOf(n int) (int, uint64) {
	st := &goweaveStuck
	// reachability by bit sets: n <= 64 goroutines, at most n rounds
	for i := 0; i < n; i++ {
		st.reach[i] = st.adj[i]
	}
	for changed := true; changed; {
		changed = false
		for i := 0; i < n; i++ {
			r := st.reach[i]
			for j := 0; j < n; j++ {
				if r&(1<<j) != 0 {
					r |= st.reach[j]
				}
			}
			if r != st.reach[i] {
				st.reach[i], changed = r, true
			}
		}
	}
	for i := 0; i < n; i++ {
		if st.reach[i]&(1<<i) == 0 {
			continue
		}
		var members uint64
		for j := 0; j < n; j++ {
			if j == i || (st.reach[i]&(1<<j) != 0 && st.reach[j]&(1<<i) != 0) {
				members |= 1 << j
			}
		}
		return i, members
	}
	return -1, 0
}

// goweaveCycleSig records the cycle of i's strongly connected set members,
// walked along its edges where it can (META stuck.goroutines), and returns
// its signature.
//
//go:nowritebarrierrec
func goweaveCycleSig(s *goweaveScan, i int, members uint64) uint64 {
	st := &goweaveStuck
	n := s.nwait
	var sig uint64
	k := 0
	for at := i; at >= 0; {
		members &^= 1 << at
		sig += goweaveHash64(s.waitG[at]*31 + s.waitL[at])
		st.cycle[k] = s.waitG[at]
		k++
		next := -1
		for j := 0; j < n && next < 0; j++ {
			if members&(1<<j) != 0 && st.adj[at]&(1<<j) != 0 {
				next = j
			}
		}
		for j := 0; j < n && next < 0; j++ {
			if members&(1<<j) != 0 {
				next = j
			}
		}
		at = next
	}
	st.ncycle = k
	return sig | 1
}

// goweaveStuckTick is one look of the check thread; it returns what the
// run was found stuck in, or goweaveStuckNone.
//
//go:nowritebarrierrec
func goweaveStuckTick(now int64) uint32 {
	st := &goweaveStuck
	if st.exiting.Load() {
		return goweaveStuckNone
	}
	st.ticks++
	_, stamp := goweaveLoadCounts()
	moved := stamp != st.lastStamp || st.ticks == 1
	if moved {
		st.lastStamp, st.quietSince, st.globalSeen = stamp, now, 0
	}
	if (!moved || st.ticks%goweaveCycleEvery == 0) && now >= st.nextScan {
		goweaveStuckLook(now, !moved, stamp)
		// A pass over many goroutines (100,000: milliseconds) is not
		// repeated before goweaveCostFactor times its cost has passed.
		st.nextScan = now + goweaveCostFactor*(nanotime()-now)
	} else {
		goweaveProgressWrite(stamp, goweaveProgressRunnable)
	}
	return st.kind.Load()
}

//go:nowritebarrierrec
func goweaveStuckLook(now int64, quiet bool, stamp uint64) {
	st := &goweaveStuck
	testGoid := goweaveTestGoid.Load()
	if testGoid == 0 && goweaveExampleStart.Load() != 0 {
		testGoid = 1 // an Example runs on the main goroutine
	}
	var s goweaveScan
	goweaveScanGs(&s, testGoid, !goweaveFull)
	timer := false
	if !s.progress {
		timer = goweaveWakingTimer()
	}
	var flags uint64
	if s.progress || !quiet {
		flags |= goweaveProgressRunnable
	}
	if timer {
		flags |= goweaveProgressTimer
	}
	goweaveProgressWrite(stamp, flags)

	if sig := goweaveLockCycle(&s); sig == 0 {
		st.cycleSig = 0
	} else if sig != st.cycleSig {
		st.cycleSig, st.cycleSince = sig, st.lastLook
	} else if st.ncycle > 1 {
		goweaveDeclare(goweaveStuckLockCycle, now)
		return
	} else if goweaveHasLeakGC && !st.leakBusy.Load() && now >= st.nextSelf {
		// A goroutine waiting for a mutex it holds itself may be waiting for
		// another goroutine to unlock it (allowed: a mutex is not its
		// locker's): only the GC's leak detection tells.
		st.leakBusy.Store(true)
		st.selfCheck, st.selfGoid = true, st.cycle[0]
		st.nextSelf = now + goweavePartialMaxNs
		goweaveWakeWatch(goweaveReqLeakCheck)
	}
	// The partial check: the test goroutine blocked, with no event of its own,
	// for the quiet window, whatever other goroutines do (a heartbeat keeps
	// stamping): the GC's leak detection tells whether anything can wake it.
	if !s.testOp {
		st.testLast = 0
	} else if s.testLast != st.testLast {
		st.testLast, st.testSince = s.testLast, st.lastLook
	} else if goweaveHasLeakGC && now-st.testSince >= goweavePartialFirstNs && now >= st.nextLeak && !st.leakBusy.Load() {
		st.leakBusy.Store(true)
		st.nextLeak = now + st.window // the next check, should this one prove nothing
		st.window = min(2*st.window, goweavePartialMaxNs)
		goweaveWakeWatch(goweaveReqLeakCheck)
	}
	st.lastLook = now
	if !quiet {
		return
	}
	// Only while the test (or Example) runs: before it, runtime.main waits on a
	// channel for the runtime's own goroutines, whose being runnable does not
	// count as progress (a survey saw 3 of 7,823 loaded runs declared stuck
	// there); after it, the process is on its way out.
	if !s.progress && !timer && s.blocked > 0 && s.testFound {
		if st.globalSeen++; st.globalSeen >= 2 {
			goweaveDeclare(goweaveStuckGlobal, now)
			return
		}
	} else {
		st.globalSeen = 0
	}
}

// goweaveDeclare ends the run as stuck in kind (once).
//
//go:nowritebarrierrec
func goweaveDeclare(kind uint32, now int64) {
	if !goweaveStuck.kind.CompareAndSwap(goweaveStuckNone, kind) {
		return
	}
	goweaveStuck.quietNs = now - goweaveStuck.quietSince
	// A goroutine blocks after its last recorded event: a global deadlock
	// formed within the quiet time; a lock cycle after the last look
	// that did not see it.
	goweaveStuck.withinNs = goweaveStuck.quietNs
	if kind == goweaveStuckLockCycle {
		goweaveStuck.withinNs = now - goweaveStuck.cycleSince
	}
	if kind != goweaveStuckLeaked {
		goweaveWakeWatch(goweaveReqStuck)
	}
}

// goweaveLeakCheck runs on the watch goroutine: the GC's leak detection,
// then whether it proved the test goroutine leaked.
func goweaveLeakCheck() bool {
	start := nanotime()
	goweaveLeakGC()
	goweaveStuck.leakChecks++
	if d := goweaveCostFactor * (nanotime() - start); goweaveStuck.nextLeak < start+d {
		goweaveStuck.nextLeak = start + d // a costly check (a large heap) is rarer
	}
	testGoid := goweaveTestGoid.Load()
	if testGoid == 0 && goweaveExampleStart.Load() != 0 {
		testGoid = 1
	}
	self := goweaveStuck.selfCheck
	goweaveStuck.selfCheck = false
	leaked, selfLeaked := false, false
	forEachG(func(gp *g) {
		if readgstatus(gp)&^_Gscan != goweaveGleaked {
			return
		}
		if gp.goid == testGoid {
			leaked = true
		}
		if self && gp.goid == goweaveStuck.selfGoid {
			selfLeaked = true
		}
	})
	kind := uint32(goweaveStuckNone)
	switch {
	case selfLeaked:
		kind = goweaveStuckLockCycle
		goweaveStuck.cycle[0], goweaveStuck.ncycle = goweaveStuck.selfGoid, 1
	case leaked:
		kind = goweaveStuckLeaked
	}
	if kind != goweaveStuckNone && goweaveStuck.kind.CompareAndSwap(goweaveStuckNone, kind) {
		goweaveStuck.quietNs = nanotime() - goweaveStuck.quietSince
		// The test goroutine blocked after its last event, after the look
		// before the one that first saw it blocked.
		goweaveStuck.withinNs = nanotime() - goweaveStuck.testSince
		if kind == goweaveStuckLockCycle {
			goweaveStuck.withinNs = nanotime() - goweaveStuck.cycleSince
		}
		goweaveLeakGCRan = true
		return true
	}
	goweaveStuck.leakBusy.Store(false)
	return false
}

// goweaveStuckReport prints why the run ends, as a fatal error line the
// fuzzer's output markers classify as a deadlock.
func goweaveStuckReport() {
	print("fatal error: goweave: deadlock: ")
	switch goweaveStuck.kind.Load() {
	case goweaveStuckGlobal:
		print("all goroutines are blocked on channels or locks, no timer pending (found by the run's state)")
	case goweaveStuckLockCycle:
		print("lock cycle: goroutine")
		for i := 0; i < goweaveStuck.ncycle; i++ {
			print(" ", goweaveStuck.cycle[i], " ->")
		}
		print(" ", goweaveStuck.cycle[0], " each wait for a mutex the next holds")
	case goweaveStuckLeaked:
		print("the test goroutine can never be woken (GC leak detection after ", goweaveStuck.quietNs/1_000_000, " ms without an event)")
	}
	print("\n\n")
}

// goweaveStuckMeta writes META stuck=<kind>, stuck.quietns (how long after
// the last recorded event it was found), stuck.withinns (at most how long
// after the stuck state formed), stuck.goroutines (a lock cycle's) and
// stuck.leakchecks.
//
//go:nowritebarrierrec
func goweaveStuckMeta() {
	if goweaveStuck.leakChecks > 0 {
		goweaveMetaKey("stuck.leakchecks")
		goweaveMetaInt(uint64(goweaveStuck.leakChecks))
	}
	kind := goweaveStuck.kind.Load()
	switch kind {
	case goweaveStuckGlobal:
		goweaveMetaKV("stuck", "global")
	case goweaveStuckLockCycle:
		goweaveMetaKV("stuck", "lockcycle")
		goweaveMetaKey("stuck.goroutines")
		for i := 0; i < goweaveStuck.ncycle; i++ {
			if i > 0 {
				goweaveMetaByte(',')
			}
			goweaveMetaDigits(goweaveStuck.cycle[i])
		}
		goweaveMetaByte('\n')
	case goweaveStuckLeaked:
		goweaveMetaKV("stuck", "leaked")
	default:
		return
	}
	goweaveMetaKey("stuck.quietns")
	goweaveMetaInt(uint64(goweaveStuck.quietNs))
	goweaveMetaKey("stuck.withinns")
	goweaveMetaInt(uint64(goweaveStuck.withinNs))
}
