// Copyright goweave authors. Added to package runtime by the goweave overlay.

// goweave schedule control: logical goroutine ids, occurrence counting, the
// order (admit operations in a sequence), delays and select preferences.
// Semantics: fuzzer/schedule/FORMAT.md; the runtime's exact rules (when a
// replay diverges, what a window is) are in runtimepatch/SCHEDULE.md.
//
// Goroutines wait by parking (gopark) on goweaveSteerMu's waiter list and
// are woken with goready: no spinning. Only waits for another goroutine's
// operation to take effect (a released delay, the exit) poll, with short
// sleeps (goweavePollNs). While anything waits, or
// while the order is active, the watchdog timer goweaveWatch is pending, so
// checkdead never reports a false deadlock; when the order ends the timer is
// stopped, so a program that deadlocks by design is still reported.

package runtime

import (
	"internal/runtime/atomic"
	"unsafe"
)

// Why a goroutine is parked by the schedule (goweaveG.wstate).
const (
	goweaveWaitNone        = 0
	goweaveWaitOrder       = 1
	goweaveWaitDelay       = 2
	goweaveWaitSettle      = 3
	goweaveWaitDelaySettle = 4 // released, sleeping until its until op took effect (not on the waiter list)

	// goweaveSettleNs is how often the head waiting for the previous
	// admitted operation of another goroutine to take effect looks again
	// whether that goroutine still runs or waits for a CPU (it may block
	// in its operation instead of reaching its next hook: nothing wakes
	// the head then). It waits at most one order window.
	goweaveSettleNs = 100_000
	// goweavePollNs is how long a goroutine waiting for another one's
	// operation to take effect sleeps between looks (a released delay,
	// the exit): sleeping, not yielding, leaves the CPU to a goroutine
	// whose thread the OS descheduled.
	goweavePollNs = 20_000
	// goweaveExitSettleNs bounds how long a normal exit waits for the
	// goroutines the schedule released to perform their operation.
	goweaveExitSettleNs = 20_000_000
)

// goweaveSteerG is the per-goroutine schedule state, part of goweaveG.
type goweaveSteerG struct {
	lnode     uint32       // trie node of this goroutine's logical id; 0 = the schedule names neither it nor a descendant
	lspawns   uint32       // recorded spawns so far: the next child is number lspawns+1
	lhas      bool         // the goroutine has a logical id (its ancestors are all goroutines)
	inPref    bool         // inside a select preference's nested selectgo
	prefSend  bool         // sleeping between looks at its preferred case (prefC != 0): a send
	prefC     uintptr      // the preferred case's channel while sleeping between looks (goweavePrefers)
	prefNext  guintptr     // goweavePrefers link
	wstate    uint8        // goweaveWait*: why it is parked (guarded by goweaveSteerMu)
	wtimeout  bool         // its delay ended by the window
	wdelay    uint32       // delay index+1 it waits for
	wop       goweaveOpKey // the operation it waits to perform
	wdeadline int64        // delay waits: when the window ends; settle waits: when to look again
	wsettled  int64        // settle waits: when to give up waiting (a goroutine spinning without hooks)
	wnext     guintptr     // waiter list / ready list link
	held      bool         // parked by the schedule since its pre hook began (zz_goweave_timing.go)
	reread    bool         // an atomic Load was steered: its next hook records it without steering (zz_goweave_atomic.go, zz_goweave_atomicfn.go)

	// Released by the schedule and its held operation has not yet taken
	// effect (goweaveTookEffect(gp, rlast)); cleared at its next hook, when
	// it parks in the schedule again and when it ends. Read by the exit.
	released bool
	rlast    uint64 // gp.goweave.last when it was released
}

var (
	goweaveSteerMu   mutex
	goweaveWaiters   guintptr // goroutines parked by the schedule
	goweaveToReady   guintptr // goroutines to ready once goweaveSteerMu is released
	goweaveOrderOn   atomic.Bool
	goweaveHead      uint32     // index of the next op of goweaveSchedOps
	goweaveAdmitted  uint32     // ops admitted
	goweaveDiverged  uint32     // 1-based index of the op that did not arrive; 0 = none
	goweaveLastAdmit int64      // nanotime of the last admission (or of the start)
	goweaveExtends   int64      // windows added to the head's deadline because its goroutine was busy
	goweaveExtended  uint32     // total window extensions (META)
	goweaveNodeG     []guintptr // the goroutine holding each trie node, while it lives
	goweaveWatch     timer
	goweaveWatchWhen int64 // when the watchdog is armed for; 0 = not armed

	// The goroutine of the last admission and whether it has moved on
	// since (reached its next pre hook, ended, or stopped running).
	goweaveLastG     atomic.Uintptr
	goweaveLastMoved atomic.Bool
	goweaveSettleG   atomic.Uintptr // the head waiting for the last admission to settle

	goweaveSelTimeouts   atomic.Uint32
	goweaveDelayTimeouts atomic.Uint32
	goweaveDelayHeld     atomic.Uint32 // delays that parked their op (the delay applied)
	goweaveExitPending   uint32        // released goroutines whose op had not taken effect when the trace was written
	goweaveTestGoid      atomic.Uint64 // goid of logical goroutine 1
)

// goweaveSteerStart runs at init, on the main goroutine (logical id 0).
func goweaveSteerStart() {
	gp := getg()
	gp.goweave.s.lhas = true
	gp.goweave.s.lnode = goweaveSchedNodeMain
	if !goweaveSchedOn {
		return
	}
	goweaveNodeG = make([]guintptr, goweaveSchedNodes+1)
	goweaveNodeG[goweaveSchedNodeMain].set(gp)
	goweaveWatch.init(goweaveWatchFired, nil)
	if len(goweaveSchedOps) > 0 {
		lock(&goweaveSteerMu)
		goweaveLastAdmit = nanotime()
		goweaveOrderOn.Store(true)
		goweaveRearm()
		unlock(&goweaveSteerMu)
	}
}

// goweaveSpawnID gives child its logical id (parent's id + its spawn
// number) and finds the test goroutine. Runs in newproc before child runs.
func goweaveSpawnID(parent, child *g) {
	test := false
	if goweaveTestGoid.Load() == 0 && goweaveIsTestEntry(child.startpc) {
		test = goweaveTestGoid.CompareAndSwap(0, child.goid)
	}
	ps := &parent.goweave.s
	if !ps.lhas {
		if test {
			child.goweave.s.lhas, child.goweave.s.lnode = true, goweaveSchedNodeTest
			if goweaveSchedOn {
				goweaveNodeG[goweaveSchedNodeTest].set(child)
				goweaveOrderFromTestStart()
			}
		}
		return
	}
	ps.lspawns++
	cs := &child.goweave.s
	cs.lhas = true
	switch {
	case test:
		cs.lnode = goweaveSchedNodeTest
	case ps.lnode != 0 && goweaveSchedOn:
		cs.lnode = goweaveSchedTrie.get(uint64(ps.lnode)<<32 | uint64(ps.lspawns))
	}
	if cs.lnode != 0 && goweaveSchedOn {
		goweaveNodeG[cs.lnode].set(child)
	}
	if test {
		goweaveOrderFromTestStart()
	}
}

// goweaveOrderFromTestStart starts the order's first window when the test
// goroutine is spawned, not at process start: on a loaded machine the
// binary's start-up alone outlasted a window and diverged the order before
// its first operation could come.
func goweaveOrderFromTestStart() {
	if !goweaveOrderOn.Load() {
		return
	}
	lock(&goweaveSteerMu)
	if goweaveOrderOn.Load() && goweaveHead == 0 {
		goweaveLastAdmit = nanotime()
	}
	unlock(&goweaveSteerMu)
}

// goweaveIsTestEntry reports whether a goroutine starting at pc runs
// testing.tRunner (`go tRunner(t, f)` compiles to a wrapper of T.Run).
func goweaveIsTestEntry(pc uintptr) bool {
	f := findfunc(pc)
	if !f.valid() {
		return false
	}
	name := funcname(f)
	const wrap = "testing.(*T).Run.gowrap"
	return name == "testing.tRunner" || len(name) > len(wrap) && name[:len(wrap)] == wrap
}

// goweaveOccur counts one recorded operation of gp at position pos. It
// returns the schedule position index and the occurrence number, k = 0 when
// the schedule names no operation of gp at pos (nothing to count).
func goweaveOccur(gp *g, pos uint32) (sp, k uint32) {
	sp = goweavePositionAt(uint64(pos - 1)).sched
	if sp == 0 || gp.goweave.s.lnode == 0 {
		return sp, 0
	}
	i := goweaveSchedOccTab.get(uint64(gp.goweave.s.lnode)<<32 | uint64(sp))
	if i == 0 {
		return sp, 0
	}
	c := &goweaveSchedOcc[i-1]
	*c++
	return sp, *c
}

// goweaveCountOnly counts an operation that is never held back (ChanMake,
// GoSpawn) so that later occurrence numbers stay right; a library's
// (internal) one is not counted, as goweaveBefore.
func goweaveCountOnly(gp *g, pos uint32) {
	if goweaveSchedOn && pos != 0 && !gp.goweave.lib {
		goweaveOccur(gp, pos)
	}
}

// goweaveSteer is the schedule's part of the pre hook: delay, then order,
// then the admission that releases delays waiting for this op. It reports
// whether gp was parked (held back) on the way.
func goweaveSteer(gp *g, kind uint8, pos uint32) (parked bool) {
	s := &gp.goweave.s
	if s.inPref {
		return false
	}
	s.released = false
	goweaveMovedOn(gp)
	sp, k := goweaveOccur(gp, pos)
	op := goweaveOpKey{node: s.lnode, sp: sp, k: k, kind: kind}
	canPark := s.lhas && gp == gp.m.curg && gp.m.locks == 0
	var t0 int64
	if canPark {
		t0 = nanotime()
	}
	if k != 0 && canPark && len(goweaveSchedDelays) > 0 {
		goweaveDelayWait(gp, op)
	}
	if s.lhas && goweaveOrderOn.Load() && goweaveHeldByOrder(kind) {
		goweaveOrderWait(gp, op, canPark)
	}
	if canPark {
		parked = s.held
		goweaveHoldEnd(gp, kind, pos, t0)
	}
	if k != 0 && len(goweaveSchedDelays) > 0 {
		goweaveDelayAdmit(gp, op)
	}
	return parked
}

// goweaveOrderWait admits op if it is the head of the order, else parks gp
// until it is or the order ends.
func goweaveOrderWait(gp *g, op goweaveOpKey, canPark bool) {
	s := &gp.goweave.s
	settled := false
	lock(&goweaveSteerMu)
	for goweaveOrderOn.Load() {
		head := goweaveSchedOps[goweaveHead]
		if op.k != 0 && head == op {
			if canPark && !settled && goweaveUnsettled(gp) {
				// Let the previous admitted operation, which another
				// goroutine is still executing, take effect first (until
				// that goroutine reaches its next hook, blocks or ends, or
				// the order ends): admitted operations on the same object
				// then reach it in the order admitted.
				settled = true
				s.wstate, s.wop, s.released = goweaveWaitSettle, op, false
				s.wdeadline = nanotime() + goweaveSettleNs
				s.wsettled = nanotime() + goweaveSchedWindow
				s.wnext = goweaveWaiters
				goweaveWaiters.set(gp)
				goweaveSettleG.Store(uintptr(unsafe.Pointer(gp)))
				goweaveRearm()
				goweaveSteerPark(gp)
				lock(&goweaveSteerMu)
				continue
			}
			goweaveAdmit(gp)
			break
		}
		if !canPark {
			break
		}
		if op.node != 0 && head.node == op.node {
			// The head names this goroutine, which is at another
			// operation: the head can never arrive.
			goweaveOrderEnd(goweaveHead + 1)
			break
		}
		s.wstate, s.wop, s.released = goweaveWaitOrder, op, false
		s.wnext = goweaveWaiters
		goweaveWaiters.set(gp)
		goweaveSteerPark(gp)
		lock(&goweaveSteerMu)
	}
	goweaveUnlockAndReady()
}

// goweaveUnsettled reports whether the last admission was of another
// goroutine that has not reached its next pre hook and is running or
// runnable (preempted, or not yet scheduled: it has not performed its
// operation). goweaveSteerMu is held.
func goweaveUnsettled(gp *g) bool {
	last := (*g)(unsafe.Pointer(goweaveLastG.Load()))
	if last == nil || last == gp || goweaveLastMoved.Load() {
		return false
	}
	st := readgstatus(last) &^ _Gscan
	return st == _Grunning || st == _Grunnable
}

// goweaveMovedOn notes that gp left its last admitted operation (it reached
// its next pre hook or ended) and wakes the head waiting for that.
func goweaveMovedOn(gp *g) {
	if goweaveLastG.Load() != uintptr(unsafe.Pointer(gp)) || goweaveLastMoved.Load() {
		return
	}
	goweaveLastMoved.Store(true)
	if goweaveSettleG.Load() == 0 {
		return
	}
	lock(&goweaveSteerMu)
	if w := (*g)(unsafe.Pointer(goweaveSettleG.Load())); w != nil && w.goweave.s.wstate == goweaveWaitSettle {
		goweaveWake(w)
	}
	goweaveUnlockAndReady()
}

// goweaveAdmit advances the order past its head, performed by gp.
// goweaveSteerMu is held.
func goweaveAdmit(gp *g) {
	goweaveLastG.Store(uintptr(unsafe.Pointer(gp)))
	goweaveLastMoved.Store(false)
	goweaveHead++
	goweaveAdmitted++
	goweaveLastAdmit = nanotime()
	goweaveExtends = 0
	if int(goweaveHead) == len(goweaveSchedOps) {
		goweaveOrderEnd(0)
		return
	}
	head := goweaveSchedOps[goweaveHead]
	for w := goweaveWaiters.ptr(); w != nil; w = w.goweave.s.wnext.ptr() {
		ws := &w.goweave.s
		if ws.wstate != goweaveWaitOrder || ws.wop.node != head.node {
			continue
		}
		if ws.wop == head {
			goweaveWake(w)
		} else {
			goweaveOrderEnd(goweaveHead + 1) // its goroutine waits at another op
		}
		return
	}
}

// goweaveOrderEnd ends the order (diverged = 1-based index of the op that
// will not arrive, 0 when the last op was admitted) and releases every
// goroutine waiting in it. goweaveSteerMu is held.
func goweaveOrderEnd(diverged uint32) {
	if !goweaveOrderOn.Load() {
		return
	}
	goweaveOrderOn.Store(false)
	goweaveDiverged = diverged
	for w := goweaveWaiters.ptr(); w != nil; {
		next := w.goweave.s.wnext.ptr()
		if ws := w.goweave.s.wstate; ws == goweaveWaitOrder || ws == goweaveWaitSettle {
			goweaveWake(w)
		}
		w = next
	}
	goweaveRearm()
}

// goweaveWake moves w from the waiter list to the ready list.
// goweaveSteerMu is held.
func goweaveWake(w *g) {
	var prev *g
	for x := goweaveWaiters.ptr(); x != nil; prev, x = x, x.goweave.s.wnext.ptr() {
		if x != w {
			continue
		}
		if prev == nil {
			goweaveWaiters = x.goweave.s.wnext
		} else {
			prev.goweave.s.wnext = x.goweave.s.wnext
		}
		break
	}
	if w.goweave.s.wstate == goweaveWaitSettle {
		goweaveSettleG.Store(0)
	}
	w.goweave.s.wstate = goweaveWaitNone
	w.goweave.s.released, w.goweave.s.rlast = true, w.goweave.last
	w.goweave.s.wnext = goweaveToReady
	goweaveToReady.set(w)
}

// goweaveUnlockAndReady releases goweaveSteerMu and readies the goroutines
// woken while it was held.
func goweaveUnlockAndReady() {
	list := goweaveToReady
	goweaveToReady = 0
	unlock(&goweaveSteerMu)
	for list != 0 {
		w := list.ptr()
		list = w.goweave.s.wnext
		w.goweave.s.wnext = 0
		goready(w, 1)
	}
}

// goweaveOrderDeadline is when the head is overdue: one window after the
// last admission, plus the windows added while its goroutine was busy.
// goweaveSteerMu is held.
func goweaveOrderDeadline() int64 {
	return goweaveLastAdmit + goweaveSchedWindow*(1+goweaveExtends)
}

// goweaveMaxExtends bounds the adaptive window: an overdue head whose
// goroutine is still busy gets at most this many more windows.
const goweaveMaxExtends = 3

// goweaveHeadBusy reports whether the goroutine the head names is making
// progress towards it (goweaveBusy), or does not exist yet while the
// program is still on its way to it.
// goweaveSteerMu is held.
func goweaveHeadBusy() bool {
	w := goweaveNodeG[goweaveSchedOps[goweaveHead].node].ptr()
	if w == nil {
		// Not spawned yet (an ended one diverged the order at its end): on a
		// loaded machine its spawner may still be on the way to it.
		return goweaveSpawnerBusy()
	}
	if w.goweave.s.wstate == goweaveWaitSettle {
		// Arrived, and waiting for the previous admission to take effect.
		return goweaveUnsettled(w)
	}
	return goweaveBusy(w)
}

// goweaveSpawnerBusy reports whether the head's goroutine can still come:
// the test has not started yet, or some goroutine of the schedule is busy.
// goweaveSteerMu is held.
func goweaveSpawnerBusy() bool {
	if goweaveTestGoid.Load() == 0 {
		return true
	}
	for i := range goweaveNodeG {
		if w := goweaveNodeG[i].ptr(); w != nil && goweaveBusy(w) {
			return true
		}
	}
	return false
}

// goweaveBusy: w is running, runnable, in a system call or sleeping in user
// code, not parked by the schedule or blocked on a primitive.
func goweaveBusy(w *g) bool {
	switch readgstatus(w) &^ _Gscan {
	case _Grunning, _Grunnable, _Gsyscall:
		return true
	case _Gwaiting:
		// Sleeping in user code, or in a released delay's settle (about to
		// go on), not parked by the schedule.
		ws := w.goweave.s.wstate
		return w.waitreason == waitReasonSleep && (ws == goweaveWaitNone || ws == goweaveWaitDelaySettle)
	}
	return false
}

// goweaveGoEndSteer: a goroutine that ends while the order's head names it
// diverges the order at once.
func goweaveGoEndSteer(gp *g) {
	gp.goweave.s.released = false
	goweaveMovedOn(gp)
	if n := gp.goweave.s.lnode; n != 0 && int(n) < len(goweaveNodeG) && goweaveNodeG[n].ptr() == gp {
		goweaveNodeG[n] = 0
	}
	if !goweaveOrderOn.Load() || gp.goweave.s.lnode == 0 {
		return
	}
	lock(&goweaveSteerMu)
	if goweaveOrderOn.Load() && goweaveSchedOps[goweaveHead].node == gp.goweave.s.lnode {
		goweaveOrderEnd(goweaveHead + 1)
	}
	goweaveUnlockAndReady()
}

// goweaveDelayWait holds op while a delay names it and its until op has not
// been admitted, for at most the delay's window.
func goweaveDelayWait(gp *g, op goweaveOpKey) {
	s := &gp.goweave.s
	for i := range goweaveSchedDelays {
		d := &goweaveSchedDelays[i]
		if d.op != op {
			continue
		}
		lock(&goweaveSteerMu)
		if !d.admitted {
			s.wstate, s.wop, s.wdelay, s.wtimeout = goweaveWaitDelay, op, uint32(i+1), false
			s.released = false
			s.wdeadline = nanotime() + d.window
			s.wnext = goweaveWaiters
			goweaveWaiters.set(gp)
			goweaveDelayHeld.Add(1)
			goweaveRearm()
			goweaveSteerPark(gp)
			if s.wtimeout {
				goweaveDelayTimeouts.Add(1)
			} else {
				goweaveDelaySettle(gp, d)
			}
			lock(&goweaveSteerMu)
		}
		goweaveUnlockAndReady()
	}
}

// goweaveDelaySettle lets the operation a delay waited for take effect before
// the held one goes on. A delay is released when its until op is admitted, in
// that op's pre hook, before the goroutine performing it has reached the mutex
// or channel; on a loaded machine that goroutine's thread can be descheduled
// for milliseconds right there, and the released op would overtake it (the
// delay then changes nothing). So the held op sleeps until the until op took
// effect (goweaveTookEffect) or the delay's window has passed once more.
func goweaveDelaySettle(gp *g, d *goweaveDelay) {
	lock(&goweaveSteerMu)
	by, before := (*g)(unsafe.Pointer(d.by)), d.byLast
	unlock(&goweaveSteerMu)
	if by == nil || by == gp {
		return
	}
	s := &gp.goweave.s
	deadline := nanotime() + d.window
	for !goweaveTookEffect(by, before) && nanotime() < deadline {
		s.wstate = goweaveWaitDelaySettle
		goweaveSteerSleep(goweavePollNs)
		s.wstate = goweaveWaitNone
	}
}

// goweaveTookEffect reports whether the operation gp started after its newest
// record was before has taken effect: its record is complete, or gp is
// blocked in a channel or sync wait (not one of the schedule's), or gp has
// ended. g
// structs are never freed, so gp stays readable after it exits. The fields
// are read without synchronization: a stale look only costs one more poll.
func goweaveTookEffect(gp *g, before uint64) bool {
	if last := gp.goweave.last; last != before && last != 0 && goweaveRec(last).post != 0 {
		return true
	}
	switch readgstatus(gp) &^ _Gscan {
	case _Gwaiting:
		// Blocked in a channel or sync operation; not a wait on the way to
		// it (a GC assist), nor one of the schedule's own waits.
		return gp.goweave.s.wstate == goweaveWaitNone && goweaveOpWait(gp.waitreason)
	case _Gdead, goweaveGleaked:
		return true
	}
	return false
}

// goweaveOpWait reports whether r is the wait of a recorded operation.
func goweaveOpWait(r waitReason) bool {
	switch r {
	case waitReasonChanReceive, waitReasonChanSend, waitReasonChanReceiveNilChan, waitReasonChanSendNilChan,
		waitReasonSelect, waitReasonSelectNoCases, waitReasonSyncCondWait, waitReasonSyncMutexLock,
		waitReasonSyncRWMutexRLock, waitReasonSyncRWMutexLock, waitReasonSyncWaitGroupWait, waitReasonSemacquire,
		waitReasonSynctestChanReceive, waitReasonSynctestChanSend, waitReasonSynctestSelect, waitReasonSynctestWaitGroupWait:
		return true
	}
	return false
}

// goweaveExitSettle runs at a normal exit, before the trace is written: a
// goroutine the schedule released just before the process ends (its until
// op was admitted, then the test returned) would otherwise often not have
// run yet, and the trace would not show the operation it was held at —
// typically the Lock that now blocks forever. Sleep, at most
// goweaveExitSettleNs, until every released goroutine has performed its
// operation (goweaveTookEffect) or parked in the schedule again.
func goweaveExitSettle() {
	deadline := nanotime() + goweaveExitSettleNs
	for {
		n := goweaveUnsettledReleases()
		if n == 0 || nanotime() >= deadline {
			goweaveExitPending = n
			return
		}
		goweaveSteerSleep(goweavePollNs)
	}
}

// goweaveUnsettledReleases counts the released goroutines whose held
// operation has not taken effect.
func goweaveUnsettledReleases() uint32 {
	var n uint32
	forEachG(func(gp *g) {
		if s := &gp.goweave.s; s.released && !goweaveTookEffect(gp, s.rlast) {
			n++
		}
	})
	return n
}

// goweaveDelayAdmit marks op admitted for the delays waiting for it.
func goweaveDelayAdmit(gp *g, op goweaveOpKey) {
	for i := range goweaveSchedDelays {
		d := &goweaveSchedDelays[i]
		if d.until != op {
			continue
		}
		lock(&goweaveSteerMu)
		d.admitted = true
		d.by, d.byLast = uintptr(unsafe.Pointer(gp)), gp.goweave.last
		for w := goweaveWaiters.ptr(); w != nil; {
			next := w.goweave.s.wnext.ptr()
			if w.goweave.s.wstate == goweaveWaitDelay && w.goweave.s.wdelay == uint32(i+1) {
				goweaveWake(w)
			}
			w = next
		}
		goweaveRearm()
		goweaveUnlockAndReady()
	}
}

// goweaveRearm keeps the watchdog pending exactly while something has a
// deadline: the active order (its window since the last admission) or a
// delay wait. Admissions do not re-arm it: a watchdog that fires early
// re-arms itself. goweaveSteerMu is held.
func goweaveRearm() {
	var next int64
	if goweaveOrderOn.Load() {
		next = goweaveOrderDeadline()
	}
	for w := goweaveWaiters.ptr(); w != nil; w = w.goweave.s.wnext.ptr() {
		if ws := &w.goweave.s; (ws.wstate == goweaveWaitDelay || ws.wstate == goweaveWaitSettle) && (next == 0 || ws.wdeadline < next) {
			next = ws.wdeadline
		}
	}
	switch {
	case next == 0 && goweaveWatchWhen != 0:
		goweaveWatch.stop()
		goweaveWatchWhen = 0
	case next != 0 && (goweaveWatchWhen == 0 || next < goweaveWatchWhen):
		if next <= 0 {
			next = 1
		}
		goweaveWatchWhen = next
		goweaveWatch.reset(next, 0)
	}
}

// goweaveWatchFired is the watchdog's timer function: it ends the order if
// its head is overdue and releases delay waits whose window passed.
func goweaveWatchFired(arg any, seq uintptr, delay int64) {
	lock(&goweaveSteerMu)
	goweaveWatchWhen = 0
	now := nanotime()
	if goweaveOrderOn.Load() && now >= goweaveOrderDeadline() {
		if goweaveExtends < goweaveMaxExtends && goweaveHeadBusy() {
			goweaveExtends++
			goweaveExtended++
		} else {
			goweaveOrderEnd(goweaveHead + 1)
		}
	}
	for w := goweaveWaiters.ptr(); w != nil; {
		next := w.goweave.s.wnext.ptr()
		if ws := &w.goweave.s; (ws.wstate == goweaveWaitDelay || ws.wstate == goweaveWaitSettle) && now >= ws.wdeadline {
			if ws.wstate == goweaveWaitSettle && now < ws.wsettled && goweaveUnsettled(w) {
				// Still running or waiting for a CPU (a loaded machine):
				// admitting the head now could let it overtake.
				ws.wdeadline = now + goweaveSettleNs
			} else {
				ws.wtimeout = ws.wstate == goweaveWaitDelay
				goweaveWake(w)
			}
		}
		w = next
	}
	goweaveRearm()
	goweaveUnlockAndReady()
}

// Select preferences.

// goweaveSelectRun is the case index meaning "no preference applied: run
// the select normally".
const goweaveSelectRun = -3

// goweavePreference returns the case the current execution of the select
// at pos prefers (a trace case index, or goweaveSchedCase*) and the window.
func goweavePreference(pos uint32) (int32, int64) {
	sp := goweavePositionAt(uint64(pos - 1)).sched
	if sp == 0 || goweaveSchedPoss[sp-1].sel == 0 {
		return goweaveSchedCaseFree, 0
	}
	pref := &goweaveSchedSelects[goweaveSchedPoss[sp-1].sel-1]
	i := atomic.Xadd(&pref.execs, 1)
	if int(i) > len(pref.cases) {
		return goweaveSchedCaseFree, 0
	}
	return pref.cases[i-1], pref.window
}

// goweaveSelectPrefer applies a preference to the selectgo call recorded as
// h at pos. done reports that the select is decided: casi (an scase index,
// -1 = default) and recvOK are its result.
func goweaveSelectPrefer(gp *g, h uint64, pos uint32, cas0 *scase, nsends, ncases int, block bool) (casi int, recvOK, done bool) {
	c, window := goweavePreference(pos)
	switch {
	case c < 0 || int(c) >= ncases:
		// Also the default (goweaveSchedCaseDef): Go takes a select's default
		// only when no case is ready, which the select finds out itself;
		// forcing it past a ready case is an outcome no schedule has.
		return 0, false, false
	}
	si := int(c)
	if si >= nsends {
		si = ncases - 1 - (si - nsends)
	}
	cases := (*[1 << 16]scase)(unsafe.Pointer(cas0))[:ncases:ncases]
	t0 := nanotime()
	recvOK, ok := goweavePreferWait(gp, &cases[si], si < nsends, block, window)
	if !ok {
		goweavePreferHeld(gp, goweaveKSelect, pos, t0, window)
		return 0, false, false
	}
	goweaveSelectReadyPref(h, cases, nsends, si)
	goweavePreferCame(gp, pos, cases[si].c, t0, goweaveOtherReady(cases, si, nsends, block))
	goweaveSelectEnd(h, si, nsends, ncases)
	return si, recvOK, true
}

// goweaveSelectNBPrefer applies a preference to a one-case select with a
// default (selectnbsend/selectnbrecv): outcome -1 = run it normally, 0 =
// not selected, 1 = selected, 3 = selected and a value received.
func goweaveSelectNBPrefer(gp *g, pos uint32, c *hchan, elem unsafe.Pointer, recv bool) int {
	pc, window := goweavePreference(pos)
	switch pc {
	case 0:
		cas := scase{c: c, elem: elem}
		t0 := nanotime()
		recvOK, ok := goweavePreferWait(gp, &cas, !recv, false, window)
		if !ok {
			goweavePreferHeld(gp, goweaveKSelect, pos, t0, window)
			return -1
		}
		goweavePreferCame(gp, pos, c, t0, true)
		if recvOK {
			return 3
		}
		return 1
	}
	return -1
}

// goweavePreferWait follows a preference for the one case cas for up to
// window, as a goroutine that is slow to reach its select: it looks whether
// cas is ready (a non-blocking select over cas alone) and, while it is not,
// sleeps before looking again. It never waits in the select: a goroutine
// blocked in a select is woken by the first of its cases that becomes ready,
// so waiting there for one case while another was ready (or became ready)
// would be a run no schedule of the program has; and a goroutine waiting on
// cas's channel alone would make cas ready for a partner (a select that
// would otherwise take another case), which a slow goroutine does not. Taking
// cas when the goroutine looks is feasible whatever else is ready then: Go
// chooses among ready cases at random. ok reports that cas completed; else
// the select runs normally (and may block: then its first ready case wins).
// The current goroutine's open record is completed by the nested select's
// hooks as the outer select's would be.
//
// Two selects that prefer the two ends of one rendezvous would each wait for
// the other to block first; so a blocking select (block) that finds another
// goroutine looking for the complementary case on the same channel gives up
// its preference and runs its select at once (goweavePreferEnter): if no case
// of it is ready it blocks, and the other one finds its case ready.
func goweavePreferWait(gp *g, cas *scase, send, block bool, window int64) (recvOK, ok bool) {
	if gp != gp.m.curg || gp.m.locks != 0 {
		return false, false
	}
	deadline := nanotime() + window
	pause := int64(goweavePollNs)
	for {
		if recvOK, ok = goweavePreferTry(gp, cas, send); ok {
			return recvOK, true
		}
		now := nanotime()
		if cas.c == nil || now >= deadline {
			// A nil channel is never ready: nothing to wait for.
			goweaveSelTimeouts.Add(1)
			return false, false
		}
		if !goweavePreferEnter(gp, cas.c, send, block) {
			return false, false
		}
		goweaveSteerSleep(min(pause, deadline-now))
		goweavePreferLeave(gp)
		pause = min(2*pause, goweavePreferPollMaxNs)
	}
}

// goweavePrefers lists the goroutines looking for their preferred case
// (goweavePreferWait), linked through prefNext. Guarded by goweaveSteerMu.
var goweavePrefers guintptr

// goweavePreferLeave takes gp off goweavePrefers.
func goweavePreferLeave(gp *g) {
	lock(&goweaveSteerMu)
	goweavePreferUnlink(gp)
	unlock(&goweaveSteerMu)
}

// goweavePreferUnlink takes gp off goweavePrefers. goweaveSteerMu is held.
func goweavePreferUnlink(gp *g) {
	var prev *g
	for x := goweavePrefers.ptr(); x != nil; prev, x = x, x.goweave.s.prefNext.ptr() {
		if x != gp {
			continue
		}
		if prev == nil {
			goweavePrefers = x.goweave.s.prefNext
		} else {
			prev.goweave.s.prefNext = x.goweave.s.prefNext
		}
		break
	}
	gp.goweave.s.prefNext, gp.goweave.s.prefC = 0, 0
}

// goweavePreferEnter puts gp on goweavePrefers while it sleeps between two
// looks at its preferred case on channel c; it is never on it while it looks
// (a look may panic: a send on a closed channel). It returns false, leaving
// gp off the list, when gp is a blocking select (block) and another goroutine
// sleeping there looks for the other end of the case (same channel, other
// direction): gp gives up its preference, and the other one, which stays on
// the list, never gives up its own for gp.
func goweavePreferEnter(gp *g, c *hchan, send, block bool) bool {
	s := &gp.goweave.s
	lock(&goweaveSteerMu)
	if block {
		for x := goweavePrefers.ptr(); x != nil; x = x.goweave.s.prefNext.ptr() {
			if xs := &x.goweave.s; xs.prefC == uintptr(unsafe.Pointer(c)) && xs.prefSend != send {
				unlock(&goweaveSteerMu)
				return false
			}
		}
	}
	s.prefC, s.prefSend = uintptr(unsafe.Pointer(c)), send
	s.prefNext = goweavePrefers
	goweavePrefers.set(gp)
	unlock(&goweaveSteerMu)
	return true
}

// goweavePreferPollMaxNs bounds the pause between two looks of a preference
// at its case: a partner that blocks on the case waits at most about this
// long for the preferring goroutine to come (as it would for a slow one).
const goweavePreferPollMaxNs = 500_000

// goweavePreferTry completes cas if it is ready now, without waiting: one
// non-blocking selectgo over cas alone (the private form of `select { case
// ...: default: }`, never recorded itself: its caller is the runtime).
func goweavePreferTry(gp *g, cas *scase, send bool) (recvOK, ok bool) {
	var cases [1]scase
	var order [2]uint16
	cases[0] = *cas
	nsends, nrecvs := 0, 1
	if send {
		nsends, nrecvs = 1, 0
	}
	s := &gp.goweave.s
	fam := gp.goweave.fam
	if gp.goweave.rec != 0 {
		gp.goweave.fam = goweaveFamSelect
	}
	s.inPref = true
	casi, recvOK := selectgo(&cases[0], &order[0], nil, nsends, nrecvs, false)
	s.inPref = false
	if gp.goweave.rec != 0 {
		gp.goweave.fam = fam
	}
	return recvOK, casi == 0
}
