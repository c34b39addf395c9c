// Copyright goweave authors. Added to package runtime by the goweave overlay.

// The time limit's leak check. When goweave stops a test at its time limit it
// first sends the signal named by GOWEAVE_TIMELIMIT (a real-time signal no Go
// program uses by default). The signal handler only wakes a thread of ours
// (it may run anywhere, so it does nothing else); that thread makes a parked
// system goroutine runnable, which runs the GC's goroutine leak detection
// (Go 1.26 and later), writes the trace, whose GOROUTINES now say which
// blocked goroutines nothing can ever wake (_Gleaked) and whose META says
// timelimit=1, and raises SIGQUIT, the usual end of a timed-out run (the
// goroutine dump). A process that does not answer gets SIGQUIT from goweave after
// a grace period, as before.
//
// The thread counts as a system thread and the goroutine as a system
// goroutine, so the runtime's own deadlock check ("all goroutines are
// asleep") still fires; nothing here sets a timer.

package runtime

import "internal/runtime/atomic"

var goweaveTL struct {
	sig   uint32        // the signal to answer; 0: not armed
	fired atomic.Uint32 // 1: the signal came (the first one counts)
	wake  note          // the signal handler wakes the thread (zz_goweave_os_*.go)
	lock  mutex
	g     *g            // the parked goroutine
	idle  atomic.Bool   // g is parked, waiting to be woken
	req   atomic.Uint32 // what g is woken for (goweaveReq*)
	ran   bool          // the check ran: META timelimit=1
	never note          // what the thread sleeps on once done
}

// What the watch goroutine is woken for.
const (
	goweaveReqTimeLimit = 1 + iota // the signal came: end the run
	goweaveReqStuck                // the run is stuck (zz_goweave_stuck.go): end it
	goweaveReqLeakCheck            // run the stuck check's leak detection
)

// init arms the check in a recording process whose goweave asked for it,
// and with it the stuck check (zz_goweave_stuck.go).
func init() {
	if !goweaveOn {
		return
	}
	sig, ok := goweaveParseCount(gogetenv("GOWEAVE_TIMELIMIT"))
	if !ok || sig == 0 || sig >= _NSIG || sig == _SIGPROF || sig == sigPreempt || sig == sigPerThreadSyscall {
		return
	}
	goweaveStuckInit()
	go goweaveTimeLimitWatch()
	mp := acquirem()
	newm(goweaveTimeLimitThread, nil, -1)
	releasem(mp)
	goweaveTL.sig = uint32(sig)
}

// goweaveTimeLimitSignal is called first thing in sighandler: it reports
// whether sig was the time limit's signal, which it then handled.
//
//go:nowritebarrierrec
func goweaveTimeLimitSignal(sig uint32) bool {
	if sig != goweaveTL.sig || sig == 0 {
		return false
	}
	if goweaveTL.fired.CompareAndSwap(0, 1) {
		goweaveTLWake()
	}
	return true
}

// goweaveTimeLimitThread waits for the signal, then wakes the goroutine;
// meanwhile, armed, it ticks the stuck check. It runs without a P, like
// sysmon.
//
//go:nowritebarrierrec
func goweaveTimeLimitThread() {
	lock(&sched.lock)
	sched.nmsys++
	checkdead()
	unlock(&sched.lock)

	if goweaveStuck.on {
		for !goweaveTLWait(goweaveStuckTickNs) {
			if goweaveExitKind.Load() != goweaveExitNone {
				break // the process is ending: nothing more to find
			}
			if goweaveStuckTick(nanotime()) != goweaveStuckNone {
				notesleep(&goweaveTL.never)
			}
		}
	}
	goweaveTLWait(-1)
	goweaveWakeWatch(goweaveReqTimeLimit)
	notesleep(&goweaveTL.never)
}

// goweaveWakeWatch wakes the watch goroutine for req once it is parked.
//
//go:nowritebarrierrec
func goweaveWakeWatch(req uint32) {
	for !goweaveTL.idle.Load() {
		usleep(1000) // the goroutine has not parked yet (a signal right after start, a leak check)
	}
	lock(&goweaveTL.lock)
	goweaveTL.idle.Store(false)
	goweaveTL.req.Store(req)
	var list gList
	list.push(goweaveTL.g)
	injectglist(&list)
	unlock(&goweaveTL.lock)
}

// goweaveTimeLimitWatch parks until the thread wakes it, then runs the leak
// check and ends the process as a timed-out run ends; or, for the stuck
// check, runs the leak detection and parks again unless it proved the test
// goroutine leaked.
func goweaveTimeLimitWatch() {
	for {
		lock(&goweaveTL.lock)
		goweaveTL.g = getg()
		goweaveTL.idle.Store(true)
		goparkunlock(&goweaveTL.lock, waitReasonForceGCIdle, traceBlockSystemGoroutine, 1)
		if goweaveTL.req.Load() != goweaveReqLeakCheck {
			break
		}
		if goweaveExitKind.Load() == goweaveExitNone && goweaveLeakCheck() {
			break
		}
	}
	if goweaveExitKind.Load() == goweaveExitNone {
		if goweaveTL.req.Load() == goweaveReqTimeLimit {
			goweaveTL.ran = true
		} else {
			goweaveStuckReport()
		}
		if !goweaveLeakGCRan {
			goweaveLeakGCRan = goweaveLeakGC()
		}
		// The trace is written before SIGQUIT's goroutine dump, which takes longer than
		// goweave's grace period with many goroutines (100K: 30 MB, about a minute): the
		// kill that follows would otherwise leave no trace. As at a normal exit, the
		// write runs with preemption off.
		goweaveNoteSignal(_SIGQUIT)
		mp := acquirem()
		goweaveFlush()
		releasem(mp)
		// The dump is printed by the thread that takes the signal: a goroutine running
		// on another thread shows "stack unavailable", and a test spinning forever would
		// not say where. With the world stopped every goroutine shows its stack. The
		// process ends with the dump; the world is never started again.
		stopTheWorld(stwGOMAXPROCS)
		raise(_SIGQUIT)
	}
	// The process is exiting already, or a handler of the program's own took
	// SIGQUIT: goweave sends it to the process group after its grace period.
	gopark(nil, nil, waitReasonForceGCIdle, traceBlockSystemGoroutine, 1)
}

// goweaveTimeLimitMeta adds META timelimit=1 when the check ran: the run was
// stopped at its time limit, and with leakgc=1 the GOROUTINES statuses say
// which blocked goroutines had leaked by then.
//
//go:nowritebarrierrec
func goweaveTimeLimitMeta() {
	if goweaveTL.ran {
		goweaveMetaKV("timelimit", "1")
	}
}
