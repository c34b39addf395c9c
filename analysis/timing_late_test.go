package analysis

import (
	"strings"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis/trace"
)

// sleepAt is a sleep of the test goroutine (7) at w_test.go:10 begun at stamp (and at
// stamp ms on the clock: the two orders agree, as in a recorded trace).
func sleepAt(stamp uint64, d time.Duration) trace.Timed {
	return trace.Timed{Kind: trace.KindTimedWait, Aux: trace.WaitSleep, Pos: 3, G: 7, Stamp: stamp, Start: int64(stamp) * ms1, Dur: d}
}

// On a loaded machine the worker, spawned at stamp 1, first runs (its Lock at stamp 70)
// after the test's 20 ms sleep (begun at stamp 5) is over (the test's Lock at 60): no
// hold of goweave's, yet the failure is the test's reliance on the clock.
func TestTimingOfWorkerLateByTheMachine(t *testing.T) {
	tm := TimingOf(timingTrace(nil, sleepAt(5, 20*time.Millisecond)))
	if tm == nil {
		t.Fatal("no timing: the worker had not run when the sleep ended")
	}
	if !tm.Late || tm.Wait != "time.Sleep(20ms)" || tm.At.Line != 10 || tm.HeldAt.Line != 4 || tm.DelayedMs != 20 ||
		tm.Delayed != (Goroutine{ID: 9, Spawn: "w.go:3"}) || tm.Waiter != (Goroutine{ID: 7}) {
		t.Errorf("timing %+v", *tm)
	}
	if s := tm.Summary(); !strings.Contains(s, "had not reached w.go:4 when the wait expired") || strings.Contains(s, "delayed 20 ms by goweave") {
		t.Errorf("summary %q", s)
	}
}

func TestTimingOfLateNeedsAWorkerThatDidNotRun(t *testing.T) {
	cases := map[string]*trace.Trace{
		// The worker locked the test's mutex during the sleep: it ran in time.
		"the worker ran during the sleep": timingTrace([]trace.Event{
			{Kind: trace.KindLock, G: 9, Pos: 2, Obj: 50, Pre: 30, Post: 31},
		}, sleepAt(5, 20*time.Millisecond)),
		// Spawned after the sleep began: the sleep was not its time to start.
		"spawned after the sleep began": func() *trace.Trace {
			tr := timingTrace(nil, sleepAt(5, 20*time.Millisecond))
			tr.Events[0].Pre, tr.Events[0].Post = 10, 10
			return tr
		}(),
		// The worker never touches what the test uses after its sleep.
		"an unrelated worker": func() *trace.Trace {
			tr := timingTrace(nil, sleepAt(5, 20*time.Millisecond))
			tr.Events[2].Obj = 51
			return tr
		}(),
		// The test did nothing after the sleep: nothing marks its end.
		"no operation after the sleep": func() *trace.Trace {
			tr := timingTrace(nil, sleepAt(65, 20*time.Millisecond))
			return tr
		}(),
	}
	for name, tr := range cases {
		if tm := TimingOf(tr); tm != nil {
			t.Errorf("%s: timing %+v, want none", name, *tm)
		}
	}
}

// The test's own worker never ran at all before the run ended (the schedule held it at its
// first operation until the test had failed): named by its go statement. A goroutine that
// never ran and that another goroutine started is no evidence: nothing ties it to the wait.
func TestTimingOfWorkerThatNeverRan(t *testing.T) {
	tr := timingTrace(nil, sleepAt(5, 20*time.Millisecond))
	tr.Events = tr.Events[:2]
	tm := TimingOf(tr)
	if tm == nil || !tm.Late || !tm.NeverRan || tm.HeldAt.Line != 3 || tm.Delayed.ID != 9 {
		t.Fatalf("timing %+v, want the worker started at w.go:3 that never ran", tm)
	}
	if s := tm.Summary(); !strings.Contains(s, "had not run at all when the wait expired") {
		t.Errorf("summary %q", s)
	}
	tr.Events[0].G = 8 // started by another goroutine
	tr.Events = append(tr.Events, trace.Event{Kind: trace.KindGoSpawn, G: 7, Pos: 1, A: 8, Pre: 0, Post: 0})
	if tm := TimingOf(tr); tm != nil {
		t.Errorf("timing %+v for a goroutine the sleeper did not start", *tm)
	}
}

// Of a polling loop's sleeps, the last one stands for the loop: a worker that ran during
// the loop, after its first rounds, was not late for it.
func TestTimingOfLatePollingLoop(t *testing.T) {
	sleeps := []trace.Timed{sleepAt(5, time.Millisecond), sleepAt(40, time.Millisecond)}
	tr := timingTrace([]trace.Event{
		{Kind: trace.KindLock, G: 7, Pos: 4, Obj: 50, Pre: 20, Post: 21}, // the loop's check after its first sleep
		{Kind: trace.KindLock, G: 9, Pos: 2, Obj: 50, Pre: 30, Post: 31}, // the worker, during the loop
	}, sleeps...)
	if tm := TimingOf(tr); tm != nil {
		t.Errorf("timing %+v for a worker that ran before the loop's last sleep", *tm)
	}
}
