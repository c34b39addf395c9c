package analysis

import (
	"testing"
	"time"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// syncedTrace: the test goroutine starts a worker whose select (w.go:40) waits for an item or
// a control message; goweave's schedule holds that select (a preference for the control
// case) across the test's time.Sleep(1ms) at w_test.go:11. After the sleep the test either
// asks the worker to catch up (a control message it receives and answers: how "sync"), or
// stops it (closes its stop channel, then waits for its answer: "stop"), or fails before
// either ("fail first"), or sends the message but only reads what the worker did under a
// mutex, with no answer ("observed"); the failure is logged at w_test.go:15.
func syncedTrace(how string) *trace.Trace {
	b := tracetest.New()
	main := b.Main()
	test := b.Test()
	items := main.MakeChan(8, "w.go:20")
	control := main.MakeChan(5, "w.go:21")
	stop := main.MakeChan(0, "w.go:22")
	done := main.MakeChan(1, "w.go:23")
	worker := main.Go("w.go:24")
	main.Send(items, "w_test.go:10")
	chosen, heldFor := 1, control
	if how == "stop" {
		chosen, heldFor = 2, stop
	}
	sel := worker.Pending().Select("w.go:40", chosen, tracetest.RecvCase(items), tracetest.RecvCase(control), tracetest.RecvCase(stop))
	sleep := trace.Timed{Kind: trace.KindTimedWait, Aux: trace.WaitSleep, G: main.ID, Stamp: b.Stamp(), Start: ms1, Dur: time.Millisecond}
	switch how {
	case "sync":
		main.Send(control, "w_test.go:12")
	case "stop":
		main.Close(stop, "w_test.go:12")
	case "fail first":
		main.TestUse(test, tracetest.TErrorf, "w_test.go:15")
		main.Send(control, "w_test.go:12")
	case "observed":
		main.Send(control, "w_test.go:12")
	}
	sel.Complete()
	if how == "observed" {
		// the worker counts under a mutex, which the test reads: no answer
		mu := b.Mutex()
		worker.Lock(mu, "w.go:42")
		worker.Unlock(mu, "w.go:43")
		main.Lock(mu, "w_test.go:13")
		main.Unlock(mu, "w_test.go:13")
	} else {
		worker.Send(done, "w.go:45")
		main.Recv(done, "w_test.go:13")
	}
	if how != "fail first" {
		main.TestUse(test, tracetest.TErrorf, "w_test.go:15")
	}
	tr := b.Trace()
	sleep.Pos = sleepLine(tr)
	// the preference's hold, recorded when the select completed: from before the sleep
	// began to after it ended
	tr.Timed = []trace.Timed{sleep, {Kind: trace.KindHold, Aux: uint16(trace.KindSelect), Pos: sel.Event().Pos, G: worker.ID,
		Obj: uint64(heldFor), Stamp: sel.Event().Post, Start: ms1 / 2, Dur: 2 * time.Millisecond}}
	return tr
}

// A test that sleeps and then synchronises with the worker the schedule held across the sleep
// (it asks, the worker answers after the held select, before the failure it then logs) made
// up for its sleep: the failure is no evidence of timing. Still evidence when it closed the
// worker's stop channel after the sleep (the worker saw it at the held select: the delay
// decided what it did), when it failed before it synchronised, or when it only saw how far
// the worker got (a mutex it used after the held select), without an answer.
func TestTimingOfSleepMadeUpFor(t *testing.T) {
	if tm := TimingOf(syncedTrace("sync")); tm != nil {
		t.Errorf("the test synchronised with the held worker before failing: timing %+v, want none", *tm)
	}
	for _, how := range []string{"stop", "fail first", "observed"} {
		tm := TimingOf(syncedTrace(how))
		if tm == nil {
			t.Errorf("%s: no timing evidence", how)
			continue
		}
		if tm.WaitKind != "sleep" || tm.At.Line != 11 || tm.HeldAt.Line != 40 || tm.Delayed.ID != 2 {
			t.Errorf("%s: timing %+v", how, *tm)
		}
	}
}

// roundsTrace: a test loop of two rounds, each with its own worker and a time.Sleep(1ms) at
// w_test.go:11 followed by a request the worker answers; after round 1 its worker waits in
// its select (w.go:40), parked by goweave's schedule to the end of the run (hold: a hold of
// that select for a preference's whole window is recorded, ending after round 2's sleep).
// Round 2 fails. ready: round 1's parked select had a case ready when it looked.
func roundsTrace(ready, hold bool) *trace.Trace {
	b := tracetest.New()
	main := b.Main()
	test := b.Test()
	var sleeps []trace.Timed
	var parked *tracetest.Op
	for round := range 2 {
		control := main.MakeChan(5, "w.go:21")
		done := main.MakeChan(1, "w.go:23")
		worker := main.Go("w.go:24")
		sleeps = append(sleeps, trace.Timed{Kind: trace.KindTimedWait, Aux: trace.WaitSleep, G: main.ID, Stamp: b.Stamp(), Start: int64(round+1) * 10 * ms1, Dur: time.Millisecond})
		main.Send(control, "w_test.go:12")
		worker.Select("w.go:40", 0, tracetest.RecvCase(control))
		worker.Send(done, "w.go:45")
		main.Recv(done, "w_test.go:13")
		if round == 0 {
			parked = worker.Pending().Select("w.go:40", 0, trace.Case{Obj: uint64(control), Ready: ready})
			worker.State(4, "sleep")
		}
	}
	main.TestUse(test, tracetest.TErrorf, "w_test.go:15")
	tr := b.Trace()
	at := sleepLine(tr)
	for i := range sleeps {
		sleeps[i].Pos = at
	}
	tr.Timed = sleeps
	if hold {
		tr.Timed = append(tr.Timed, trace.Timed{Kind: trace.KindHold, Aux: uint16(trace.KindSelect), Pos: parked.Event().Pos, G: 2,
			Stamp: b.Stamp() + 1, Start: 15 * ms1, Dur: 10 * time.Millisecond})
	}
	return tr
}

// A worker of an earlier round of the test's loop, parked to the end in a select that had
// nothing to take and that nobody used again, was held from nothing: no evidence that round
// 2's sleep expired early, whether its hold ended (a preference's window, recorded across the
// sleep) or not (held to the end). Still evidence when its select had a case ready, or waited
// on a timer's channel.
func TestTimingOfIdleWorkerOfEarlierRound(t *testing.T) {
	for _, hold := range []bool{false, true} {
		if tm := TimingOf(roundsTrace(false, hold)); tm != nil {
			t.Errorf("round 1's idle worker (hold recorded: %v): timing %+v, want none", hold, *tm)
		}
		tm := TimingOf(roundsTrace(true, hold))
		if tm == nil || tm.HeldToEnd == hold || tm.HeldAt.Line != 40 {
			t.Errorf("a parked select with a ready case (hold recorded: %v): timing %+v, want held at w.go:40", hold, tm)
		}
		// The clock makes a timer's channel ready with nothing recorded.
		tr := roundsTrace(false, hold)
		var parked *trace.Event
		for i := range tr.Events {
			if e := &tr.Events[i]; e.Kind == trace.KindSelect && !e.Completed() {
				parked = e
			}
		}
		tr.Timed = append(tr.Timed, trace.Timed{Kind: trace.KindTimedWait, Aux: trace.WaitTimerChan, G: parked.G, Obj: parked.Cases[0].Obj,
			Pos: parked.Pos, Stamp: parked.Pre - 1, Start: 12 * ms1, Dur: time.Hour})
		if tm := TimingOf(tr); tm == nil || tm.HeldAt.Line != 40 {
			t.Errorf("a parked select on a timer's channel (hold recorded: %v): timing %+v, want held at w.go:40", hold, tm)
		}
	}
}

// lateTrace: the test starts a worker and sleeps 1 ms at w_test.go:11; the worker's first
// operation comes only after the sleep (late by the machine, no hold recorded): the receive
// of the test's control message, which it answers (stop: the test closes the worker's stop
// channel instead, and the worker answers that). The test then fails at w_test.go:15.
func lateTrace(stop bool) *trace.Trace {
	b := tracetest.New()
	main := b.Main()
	test := b.Test()
	control := main.MakeChan(5, "w.go:21")
	done := main.MakeChan(1, "w.go:23")
	worker := main.Go("w.go:24")
	main.TestUse(test, tracetest.TLog, "w_test.go:10")
	sleep := trace.Timed{Kind: trace.KindTimedWait, Aux: trace.WaitSleep, G: main.ID, Stamp: b.Stamp(), Start: ms1, Dur: time.Millisecond}
	if stop {
		main.Close(control, "w_test.go:12")
		worker.RecvOK(control, "w.go:40")
	} else {
		main.Send(control, "w_test.go:12")
		worker.Recv(control, "w.go:40")
	}
	worker.Send(done, "w.go:45")
	main.Recv(done, "w_test.go:13")
	main.TestUse(test, tracetest.TErrorf, "w_test.go:15")
	tr := b.Trace()
	sleep.Pos = sleepLine(tr)
	tr.Timed = []trace.Timed{sleep}
	return tr
}

// A worker that first ran after the test's sleep (a slow machine) is no evidence either when
// the test learned of that first operation before failing; it is when the test had closed
// the worker's channel after the sleep.
func TestTimingOfLateWorkerMadeUpFor(t *testing.T) {
	if tm := TimingOf(lateTrace(false)); tm != nil {
		t.Errorf("the test synchronised with the late worker before failing: timing %+v, want none", *tm)
	}
	if tm := TimingOf(lateTrace(true)); tm == nil || !tm.Late || tm.HeldAt.Line != 40 {
		t.Errorf("the test closed the late worker's channel: timing %+v, want late at w.go:40", tm)
	}
}

// sleepLine adds w_test.go:11, the line of the sleeps, to tr's positions.
func sleepLine(tr *trace.Trace) uint32 {
	tr.Positions = append(tr.Positions, trace.Position{File: tracetest.Dir + "w_test.go", Line: 11, Column: 2, Func: "m.TestX"})
	return uint32(len(tr.Positions))
}
