package runtimepatch

// siteTable are the patch sites of every supported release (versions.go),
// written against go1.26.8 and found by their text (sites.go), so releases
// that move lines keep working: the same anchors hold from go1.25.0 to
// go1.27.4 (TestSitesInEveryRelease). Each replacement keeps the hook on the original line, so
// tracebacks stay true. All logic lives in the added files under _patch/.
var siteTable = append([]site{
	// runtime2.go: per-goroutine recorder state.
	{"runtime/runtime2.go", "type g", "", "\tvalgrindStackID uintptr", "\tvalgrindStackID uintptr; goweave goweaveG"},

	// chan.go: channel state, make, send, receive, close.
	{"runtime/chan.go", "type hchan", "", "\tlock mutex", "\tlock mutex; goweave goweaveChan"},
	{"runtime/chan.go", "makechan", "", "\treturn c", "\tgoweaveChanMake(c, size, sys.GetCallerPC()); return c"},
	{"runtime/chan.go", "chansend1", "", "\tchansend(c, elem, true, sys.GetCallerPC())",
		"\tgoweaveChanPre(c, false, false, false, sys.GetCallerPC()); chansend(c, elem, true, sys.GetCallerPC())"},
	{"runtime/chan.go", "chansend", "\tif c.closed != 0 {", "\t\tpanic(plainError(\"send on closed channel\"))",
		"\t\tgoweaveChanClosed(c, true, goweaveFamSend); panic(plainError(\"send on closed channel\"))"},
	{"runtime/chan.go", "chansend", "", "\t\tsend(c, sg, ep, func() { unlock(&c.lock) }, 3)",
		"\t\tgoweaveChanHandoff(c, sg, true, goweaveFamSend); send(c, sg, ep, func() { unlock(&c.lock) }, 3)"},
	{"runtime/chan.go", "chansend", "", "\t\tc.qcount++", "\t\tc.qcount++; goweaveChanBuffered(c, true, goweaveFamSend)"},
	{"runtime/chan.go", "closechan", "", "func closechan(c *hchan) {",
		"func closechan(c *hchan) { goweaveClose := goweaveChanClosePre(c, sys.GetCallerPC())"},
	{"runtime/chan.go", "closechan", "", "\t\tpanic(plainError(\"close of nil channel\"))",
		"\t\tgoweaveChanCloseDone(goweaveClose, 0); panic(plainError(\"close of nil channel\"))"},
	{"runtime/chan.go", "closechan", "", "\t\tpanic(plainError(\"close of closed channel\"))",
		"\t\tgoweaveChanCloseDone(goweaveClose, goweaveFClosed); panic(plainError(\"close of closed channel\"))"},
	{"runtime/chan.go", "closechan", "", "\tc.closed = 1", "\tc.closed = 1; goweaveChanCloseDone(goweaveClose, 0)"},
	{"runtime/chan.go", "closechan", "\t// release all readers", "\t\tgp.param = unsafe.Pointer(sg)", "\t\tgoweaveChanWokenByClose(c, sg, false); gp.param = unsafe.Pointer(sg)"},
	{"runtime/chan.go", "closechan", "\t// release all writers (they will panic)", "\t\tgp.param = unsafe.Pointer(sg)", "\t\tgoweaveChanWokenByClose(c, sg, true); gp.param = unsafe.Pointer(sg)"},
	{"runtime/chan.go", "chanrecv1", "", "\tchanrecv(c, elem, true)",
		"\tgoweaveChanPre(c, true, elem != nil, false, sys.GetCallerPC()); chanrecv(c, elem, true)"},
	{"runtime/chan.go", "chanrecv2", "", "\t_, received = chanrecv(c, elem, true)",
		"\tgoweaveChanPre(c, true, elem != nil, true, sys.GetCallerPC()); _, received = chanrecv(c, elem, true)"},
	{"runtime/chan.go", "chanrecv", "", "\t\t\tunlock(&c.lock)", "\t\t\tgoweaveChanClosed(c, false, goweaveFamRecv); unlock(&c.lock)"},
	{"runtime/chan.go", "chanrecv", "", "\t\t\trecv(c, sg, ep, func() { unlock(&c.lock) }, 3)",
		"\t\t\tgoweaveChanHandoff(c, sg, false, goweaveFamRecv); recv(c, sg, ep, func() { unlock(&c.lock) }, 3)"},
	{"runtime/chan.go", "chanrecv", "", "\t\tc.qcount--", "\t\tc.qcount--; goweaveChanBuffered(c, false, goweaveFamRecv)"},
	{"runtime/chan.go", "timerchandrain", "", "\t\tc.qcount--", "\t\tc.qcount--; goweaveTimerDrain(c)"},
	{"runtime/chan.go", "selectnbsend", "", "\treturn chansend(c, elem, false, sys.GetCallerPC())",
		"\tgoweaveNB, goweaveOut := goweaveSelectNBPre(c, elem, false, false, sys.GetCallerPC()); if goweaveOut >= 0 { selected = goweaveOut&1 != 0 } else { selected = chansend(c, elem, false, sys.GetCallerPC()) }; goweaveSelectNBEnd(goweaveNB, selected); return"},
	{"runtime/chan.go", "selectnbrecv", "", "\treturn chanrecv(c, elem, false)",
		"\tgoweaveNB, goweaveOut := goweaveSelectNBPre(c, elem, true, elem != nil, sys.GetCallerPC()); if goweaveOut >= 0 { selected, received = goweaveOut&1 != 0, goweaveOut&2 != 0 } else { selected, received = chanrecv(c, elem, false) }; goweaveSelectNBEnd(goweaveNB, selected); return"},

	// select.go: select {}, selectgo (whose pre hook may decide the select
	// for a schedule's select preference) and each way it completes.
	{"runtime/select.go", "block", "", "\tgopark(nil, nil, waitReasonSelectNoCases, traceBlockForever, 1) // forever",
		"\tgoweaveSelectPre(nil, 0, 0, true, sys.GetCallerPC()); gopark(nil, nil, waitReasonSelectNoCases, traceBlockForever, 1) // forever"},
	{"runtime/select.go", "selectgo", "", "\tgp := getg()",
		"\tgp := getg(); goweaveSel, goweaveCasi, goweaveRecvOK := goweaveSelectPre(cas0, nsends, nrecvs, block, sys.GetCallerPC()); if goweaveCasi != goweaveSelectRun { return goweaveCasi, goweaveRecvOK }"},
	{"runtime/select.go", "selectgo", "\t// lock all the channels involved in the select", "\tsellock(scases, lockorder)",
		"\tsellock(scases, lockorder); goweaveSelectReady(goweaveSel, scases, nsends)"},
	{"runtime/select.go", "selectgo", "", "\tc.qcount--", "\tc.qcount--; goweaveChanBuffered(c, false, goweaveFamSelect)"},
	{"runtime/select.go", "selectgo", "", "\tc.qcount++", "\tc.qcount++; goweaveChanBuffered(c, true, goweaveFamSelect)"},
	{"runtime/select.go", "selectgo", "", "\trecv(c, sg, cas.elem, func() { selunlock(scases, lockorder) }, 2)",
		"\tgoweaveChanHandoff(c, sg, false, goweaveFamSelect); recv(c, sg, cas.elem, func() { selunlock(scases, lockorder) }, 2)"},
	{"runtime/select.go", "selectgo", "rclose:", "\tselunlock(scases, lockorder)", "\tgoweaveChanClosed(c, false, goweaveFamSelect); selunlock(scases, lockorder)"},
	{"runtime/select.go", "selectgo", "", "\tsend(c, sg, cas.elem, func() { selunlock(scases, lockorder) }, 2)",
		"\tgoweaveChanHandoff(c, sg, true, goweaveFamSelect); send(c, sg, cas.elem, func() { selunlock(scases, lockorder) }, 2)"},
	{"runtime/select.go", "selectgo", "", "\treturn casi, recvOK", "\tgoweaveSelectEnd(goweaveSel, casi, nsends, ncases); return casi, recvOK"},
	{"runtime/select.go", "selectgo", "sclose:", "\tselunlock(scases, lockorder)",
		"\tgoweaveChanClosed(c, true, goweaveFamSelect); goweaveSelectEnd(goweaveSel, casi, nsends, ncases); selunlock(scases, lockorder)"},

	// proc.go: exit, goroutine end and spawn, deadlock.
	{"runtime/proc.go", "runExitHooks", "", "func runExitHooks(code int) {", "func runExitHooks(code int) { goweaveExitHook(code)"},
	{"runtime/proc.go", "goexit1", "", "func goexit1() {", "func goexit1() { goweaveGoEnd()"},
	{"runtime/proc.go", "newproc", "", "\t\tnewg := newproc1(fn, gp, pc, false, waitReasonZero)",
		"\t\tnewg := newproc1(fn, gp, pc, false, waitReasonZero); goweaveSpawn(gp, newg, pc)"},
	{"runtime/proc.go", "checkdead", "", "\t\tfatal(\"no goroutines (main called runtime.Goexit) - deadlock!\")",
		"\t\tgoweaveNoteDeadlock(\"no goroutines (main called runtime.Goexit) - deadlock!\"); fatal(\"no goroutines (main called runtime.Goexit) - deadlock!\")"},
	{"runtime/proc.go", "checkdead", "", "\tfatal(\"all goroutines are asleep - deadlock!\")",
		"\tgoweaveNoteDeadlock(\"all goroutines are asleep - deadlock!\"); fatal(\"all goroutines are asleep - deadlock!\")"},

	// stack.go, mgc.go: the ids of sync objects, kept outside them (zz_goweave_objid.go), follow a
	// stack that moves, and are dropped for heap objects the GC found dead before the sweep frees them.
	{"runtime/stack.go", "copystack", "", "\tadjinfo.delta = new.hi - old.hi", "\tadjinfo.delta = new.hi - old.hi; goweaveStackMoved(gp, old, adjinfo.delta)"},
	{"runtime/mgc.go", "gcMarkTermination", "", "\t\tsetGCPhase(_GCoff)", "\t\tgoweaveIDsSweep(); setGCPhase(_GCoff)"},

	// time.go: a timer's set (creation, Reset) and the run of its function (zz_goweave_timer.go).
	{"runtime/time.go", "type timer", "", "\tmu mutex", "\tmu mutex; goweaveID uint64; goweavePos uint32"},
	{"runtime/time.go", "newTimer", "", "\tt.init = true", "\tt.init = true; goweaveTimerSet(t, c, when, period, sys.GetCallerPC())"},
	{"runtime/time.go", "resetTimer", "", "func resetTimer(t *timeTimer, when, period int64) bool {",
		"func resetTimer(t *timeTimer, when, period int64) bool { goweaveTimerSet(t, nil, when, period, sys.GetCallerPC())"},
	{"runtime/time.go", "(*timer).unlockAndRun", "", "\tf(arg, seq, delay)", "\tgoweaveTimerRun(t); f(arg, seq, delay); goweaveTimerRun(nil)"},
	// time.go: a time.Sleep, a wait bounded by wall-clock time (zz_goweave_timing.go).
	{"runtime/time.go", "timeSleep", "", "\tgp := getg()", "\tgp := getg(); goweaveSleep(ns, sys.GetCallerPC())"},

	// synctest.go: the main goroutine of a testing/synctest bubble is started by newproc1 directly.
	{"runtime/synctest.go", "synctestRun", "", "\t\tbubble.main = newproc1(fv, gp, pc, false, waitReasonZero)",
		"\t\tbubble.main = newproc1(fv, gp, pc, false, waitReasonZero); goweaveSpawn(gp, bubble.main, pc)"},

	// panic.go, debuglog.go, signal_unix.go: how the process dies, and the flush.
	{"runtime/panic.go", "throw", "", "func throw(s string) {", "func throw(s string) { goweaveNoteFatal(s)"},
	{"runtime/panic.go", "fatal", "", "func fatal(s string) {", "func fatal(s string) { goweaveNoteFatal(s)"},
	{"runtime/panic.go", "fatalpanic", "", "func fatalpanic(msgs *_panic) {", "func fatalpanic(msgs *_panic) { goweaveNotePanic(msgs)"},
	{"runtime/debuglog.go", "printDebugLog", "", "func printDebugLog() {", "func printDebugLog() { goweaveFlush()"},
	{"runtime/signal_unix.go", "sighandler", "", "\tif sig == _SIGUSR1 && testSigusr1 != nil && testSigusr1(gp) {",
		"\tif goweaveTimeLimitSignal(sig) { return }; if sig == _SIGUSR1 && testSigusr1 != nil && testSigusr1(gp) {"},
	{"runtime/signal_unix.go", "sighandler", "", "\tmp.throwing = throwTypeRuntime", "\tgoweaveNoteSignal(sig); mp.throwing = throwTypeRuntime"},
	{"runtime/signal_unix.go", "dieFromSignal", "", "func dieFromSignal(sig uint32) {", "func dieFromSignal(sig uint32) { goweaveDie(sig)"},

	// sync: Mutex.
	{"sync/mutex.go", "import", "", "\tisync \"internal/sync\"", "\tisync \"internal/sync\"; \"internal/runtime/sys\""},
	{"sync/mutex.go", "(*Mutex).Lock", "", "\tm.mu.Lock()",
		"\tgoweaveH := goweaveSyncPre(goweaveKLock, 0, goweaveObj(m), sys.GetCallerPC(), 0, 0); m.mu.Lock(); if goweaveH != 0 { goweaveSyncPost(goweaveH, 0) }"},
	{"sync/mutex.go", "(*Mutex).TryLock", "", "\treturn m.mu.TryLock()",
		"\tgoweaveH := goweaveSyncPre(goweaveKTryLock, 0, goweaveObj(m), sys.GetCallerPC(), 0, 0); ok := m.mu.TryLock(); if goweaveH != 0 { goweaveSyncTry(goweaveH, ok) }; return ok"},
	{"sync/mutex.go", "(*Mutex).Unlock", "", "\tm.mu.Unlock()",
		"\tif goweaveH := goweaveSyncPre(goweaveKUnlock, 0, goweaveObj(m), sys.GetCallerPC(), 0, 0); goweaveH != 0 { goweaveSyncAt(goweaveH, 0) }; m.mu.Unlock()"},

	// sync: RWMutex. Each method becomes a wrapper around its renamed original body.
	{"sync/rwmutex.go", "import", "", "\t\"internal/race\"", "\t\"internal/race\"; \"internal/runtime/sys\""},
	{"sync/rwmutex.go", "(*RWMutex).RLock", "", "func (rw *RWMutex) RLock() {",
		"func (rw *RWMutex) RLock() { goweaveH := goweaveSyncPre(goweaveKRLock, 0, goweaveObj(rw), sys.GetCallerPC(), 0, 0); rw.goweaveRLock(); if goweaveH != 0 { goweaveSyncPost(goweaveH, 0) } }; func (rw *RWMutex) goweaveRLock() {"},
	{"sync/rwmutex.go", "(*RWMutex).TryRLock", "", "func (rw *RWMutex) TryRLock() bool {",
		"func (rw *RWMutex) TryRLock() bool { goweaveH := goweaveSyncPre(goweaveKTryRLock, 0, goweaveObj(rw), sys.GetCallerPC(), 0, 0); ok := rw.goweaveTryRLock(); if goweaveH != 0 { goweaveSyncTry(goweaveH, ok) }; return ok }; func (rw *RWMutex) goweaveTryRLock() bool {"},
	{"sync/rwmutex.go", "(*RWMutex).RUnlock", "", "func (rw *RWMutex) RUnlock() {",
		"func (rw *RWMutex) RUnlock() { if goweaveH := goweaveSyncPre(goweaveKRUnlock, 0, goweaveObj(rw), sys.GetCallerPC(), 0, 0); goweaveH != 0 { goweaveSyncAt(goweaveH, 0) }; rw.goweaveRUnlock() }; func (rw *RWMutex) goweaveRUnlock() {"},
	{"sync/rwmutex.go", "(*RWMutex).Lock", "", "func (rw *RWMutex) Lock() {",
		"func (rw *RWMutex) Lock() { goweaveH := goweaveSyncPre(goweaveKLock, goweaveFRW, goweaveObj(rw), sys.GetCallerPC(), 0, 0); rw.goweaveLock(); if goweaveH != 0 { goweaveSyncPost(goweaveH, 0) } }; func (rw *RWMutex) goweaveLock() {"},
	{"sync/rwmutex.go", "(*RWMutex).TryLock", "", "func (rw *RWMutex) TryLock() bool {",
		"func (rw *RWMutex) TryLock() bool { goweaveH := goweaveSyncPre(goweaveKTryLock, goweaveFRW, goweaveObj(rw), sys.GetCallerPC(), 0, 0); ok := rw.goweaveTryLock(); if goweaveH != 0 { goweaveSyncTry(goweaveH, ok) }; return ok }; func (rw *RWMutex) goweaveTryLock() bool {"},
	{"sync/rwmutex.go", "(*RWMutex).Unlock", "", "func (rw *RWMutex) Unlock() {",
		"func (rw *RWMutex) Unlock() { if goweaveH := goweaveSyncPre(goweaveKUnlock, goweaveFRW, goweaveObj(rw), sys.GetCallerPC(), 0, 0); goweaveH != 0 { goweaveSyncAt(goweaveH, 0) }; rw.goweaveUnlock() }; func (rw *RWMutex) goweaveUnlock() {"},

	// sync: Once. Do completes its record also when f panics (Do then counts as returned).
	{"sync/once.go", "import", "", "\t\"sync/atomic\"", "\t\"sync/atomic\"; \"internal/runtime/sys\""},
	{"sync/once.go", "(*Once).Do", "", "func (o *Once) Do(f func()) {",
		"func (o *Once) Do(f func()) { goweaveH := goweaveSyncPre(goweaveKOnceDo, 0, goweaveObj(o), sys.GetCallerPC(), 0, 0); if goweaveH != 0 { defer goweaveSyncPost(goweaveH, 0) }; o.goweaveDo(f, goweaveH) }; func (o *Once) goweaveDo(f func(), goweaveH uintptr) {"},
	{"sync/once.go", "(*Once).Do", "", "\t\to.doSlow(f)", "\t\to.goweaveDoSlow(f, goweaveH)"},
	{"sync/once.go", "(*Once).doSlow", "", "func (o *Once) doSlow(f func()) {",
		"func (o *Once) doSlow(f func()) { o.goweaveDoSlow(f, 0) }; func (o *Once) goweaveDoSlow(f func(), goweaveH uintptr) {"},
	{"sync/once.go", "(*Once).doSlow", "", "\t\tf()", "\t\tgoweaveSyncFlag(goweaveH, goweaveFSuccess); f()"},

	// sync: WaitGroup. Add, Done and Go share the renamed Add body, which is told
	// the kind and the user's call site.
	{"sync/waitgroup.go", "import", "", "\t\"internal/race\"", "\t\"internal/race\"; \"internal/runtime/sys\""},
	{"sync/waitgroup.go", "(*WaitGroup).Add", "", "func (wg *WaitGroup) Add(delta int) {",
		"func (wg *WaitGroup) Add(delta int) { wg.goweaveAdd(delta, goweaveKWgAdd, sys.GetCallerPC()) }; func (wg *WaitGroup) goweaveAdd(delta int, goweaveKind uint8, goweavePC uintptr) {"},
	{"sync/waitgroup.go", "(*WaitGroup).Add", "", "\tstate := wg.state.Add(uint64(delta) << 32)",
		"\tgoweaveH := goweaveSyncPre(goweaveKind, 0, goweaveObj(wg), goweavePC, uint64(int64(delta)), 0); state := wg.state.Add(uint64(delta) << 32); if goweaveH != 0 { goweaveSyncAt(goweaveH, goweaveWgCounter(state)) }"},
	{"sync/waitgroup.go", "(*WaitGroup).Done", "", "\twg.Add(-1)", "\twg.goweaveAdd(-1, goweaveKWgDone, sys.GetCallerPC())"},
	{"sync/waitgroup.go", "(*WaitGroup).Wait", "", "func (wg *WaitGroup) Wait() {",
		"func (wg *WaitGroup) Wait() { goweaveH := goweaveSyncPre(goweaveKWgWait, 0, goweaveObj(wg), sys.GetCallerPC(), 0, goweaveWgCounter(wg.state.Load())); wg.goweaveWait(); if goweaveH != 0 { goweaveSyncPost(goweaveH, 0) } }; func (wg *WaitGroup) goweaveWait() {"},
	{"sync/waitgroup.go", "(*WaitGroup).Go", "", "\twg.Add(1)", "\twg.goweaveAdd(1, goweaveKWgAdd, sys.GetCallerPC()); goweaveSpawnVia(sys.GetCallerPC())"},

	// sync: Cond.
	{"sync/cond.go", "import", "", "\t\"sync/atomic\"", "\t\"sync/atomic\"; \"internal/runtime/sys\""},
	{"sync/cond.go", "(*Cond).Wait", "", "func (c *Cond) Wait() {",
		"func (c *Cond) Wait() { c.goweaveWait(sys.GetCallerPC()) }; func (c *Cond) goweaveWait(goweavePC uintptr) {"},
	{"sync/cond.go", "(*Cond).Wait", "", "\tt := runtime_notifyListAdd(&c.notify)",
		"\tt := runtime_notifyListAdd(&c.notify); goweaveH := goweaveCondWaitPre(goweaveObj(c), goweaveLocker(c.L), t, goweavePC)"},
	{"sync/cond.go", "(*Cond).Wait", "", "\truntime_notifyListWait(&c.notify, t)", "\truntime_notifyListWait(&c.notify, t); goweaveSyncPost(goweaveH, 0)"},
	{"sync/cond.go", "(*Cond).Wait", "", "\tc.L.Lock()", "\tc.L.Lock(); if goweaveH != 0 { goweaveAttrDone() }"},
	{"sync/cond.go", "(*Cond).Signal", "", "\truntime_notifyListNotifyOne(&c.notify)",
		"\tgoweaveCondNotify(goweaveKCondSignal, goweaveObj(c), &c.notify, sys.GetCallerPC()); runtime_notifyListNotifyOne(&c.notify)"},
	{"sync/cond.go", "(*Cond).Broadcast", "", "\truntime_notifyListNotifyAll(&c.notify)",
		"\tgoweaveCondNotify(goweaveKCondBroadcast, goweaveObj(c), &c.notify, sys.GetCallerPC()); runtime_notifyListNotifyAll(&c.notify)"},
}, append(append(append(atomicSiteTable, atomicFnSiteTable...), reflectSiteTable...), testingSiteTable...)...) // sites_atomic.go, sites_atomicfn.go, sites_reflect.go, sites_testing.go
