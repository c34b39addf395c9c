package analysis

import (
	"strings"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis/trace"
)

// A worker started before a time.After that had not run when the select that took the
// timer's case completed (the timer had fired) was late by the machine, as for a sleep;
// one that ran before that completion was not late.
func TestTimingOfWorkerLateForATimer(t *testing.T) {
	// The worker 9 (spawned at stamp 1) first runs at stamp 70 (its Lock of mutex 50, which
	// the test locks too at 60); the test's timer (channel 5, set at stamp 5) is taken by its
	// select, completed at stamp 20.
	timer := trace.Timed{Kind: trace.KindTimedWait, Aux: trace.WaitTimerChan, Pos: 3, G: 7, Obj: 5, Stamp: 5, Dur: time.Millisecond}
	sel := func(post uint64) trace.Event {
		return trace.Event{Kind: trace.KindSelect, G: 7, Pos: 4, Pre: 10, Post: post, A: 1, Aux: 2,
			Cases: []trace.Case{{Index: 0, Obj: 4}, {Index: 1, Obj: 5}}}
	}
	tm := TimingOf(timingTrace([]trace.Event{sel(20)}, timer))
	if tm == nil {
		t.Fatal("no timing: the worker had not run when the select took the fired timer")
	}
	if !tm.Late || tm.WaitKind != "timer" || tm.WaitMs != 1 || tm.Delayed.ID != 9 || tm.HeldAt.Line != 4 {
		t.Errorf("timing %+v", *tm)
	}
	if s := tm.Summary(); !strings.Contains(s, "had not reached w.go:4 when the wait expired") {
		t.Errorf("summary %q", s)
	}
	// The select completed only after the worker's first operation: it may have run in time.
	if tm := TimingOf(timingTrace([]trace.Event{sel(75)}, timer)); tm != nil {
		t.Errorf("the worker ran before the select completed: timing %+v, want none", *tm)
	}
}

// A goroutine the setter of a context's deadline started after setting it, before it
// fired, that never ran at all counts as late; one started by another goroutine does not.
func TestTimingOfNeverRanBeforeDeadline(t *testing.T) {
	run := func(spawner uint64) *trace.Trace {
		return &trace.Trace{
			Meta:      map[string]string{"module": "/m"},
			Positions: []trace.Position{{File: "/m/w.go", Line: 3}, {File: "/m/w.go", Line: 4}, {File: "/m/w_test.go", Line: 10}},
			Events: []trace.Event{
				{Kind: trace.KindGoSpawn, G: spawner, Pos: 1, A: 9, Pre: 6, Post: 6},      // the producer, never run
				{Kind: trace.KindGoSpawn, G: 0, Obj: 6, Pos: 3, A: 11, Pre: 20, Post: 20}, // the deadline fired
				{Kind: trace.KindChanRecv, G: 7, Obj: 12, Pos: 3, Pre: 8, Post: 30},
			},
			Timed: []trace.Timed{{Kind: trace.KindTimedWait, Aux: trace.WaitTimerFunc, Pos: 3, G: 7, Obj: 6, Stamp: 4, Dur: 20 * time.Millisecond}},
		}
	}
	tm := TimingOf(run(7))
	if tm == nil || !tm.NeverRan || tm.WaitKind != "func-timer" || tm.Delayed.ID != 9 || tm.HeldAt.Line != 3 {
		t.Fatalf("the setter's goroutine never ran before its deadline: timing %+v", tm)
	}
	if tm := TimingOf(run(8)); tm != nil {
		t.Errorf("started by another goroutine: timing %+v, want none", *tm)
	}
}

// A select kept from a partner pending since before its clock's case came (a consumer
// preferring its context's Done while the producer's send waited): timing-dependent. Not
// when the partner came only after the clock, nor when it completed before the select.
func TestTimingOfSelectPassedOverPartner(t *testing.T) {
	run := func(partnerPre, partnerPost uint64) *trace.Trace {
		return &trace.Trace{
			Meta:      map[string]string{"module": "/m"},
			Positions: []trace.Position{{File: "/m/w.go", Line: 3}, {File: "/m/w.go", Line: 4}, {File: "/m/w_test.go", Line: 10}},
			Events: []trace.Event{
				{Kind: trace.KindSelect, G: 10, Pos: 1, Pre: 16, Post: 28, A: 1, Aux: 2, // took the Done case
					Cases: []trace.Case{{Index: 0, Obj: 11}, {Index: 1, Obj: 13}}},
				{Kind: trace.KindSelect, G: 9, Pos: 2, Pre: partnerPre, Post: partnerPost, A: trace.SelectDefault, Aux: 2, // the producer's send on 11
					Cases: []trace.Case{{Index: 0, Obj: 11, Send: true}, {Index: 1, Obj: 13}}},
				{Kind: trace.KindGoSpawn, G: 0, Obj: 6, Pos: 3, A: 17, Pre: 18, Post: 18}, // the deadline fired
				{Kind: trace.KindChanClose, G: 17, Obj: 13, Pos: 3, Pre: 21, Post: 22},    // and closed Done
			},
			Timed: []trace.Timed{{Kind: trace.KindTimedWait, Aux: trace.WaitTimerFunc, Pos: 3, G: 7, Obj: 6, Stamp: 4, Dur: 20 * time.Millisecond}},
		}
	}
	tm := TimingOf(run(17, 0))
	if tm == nil || tm.Partner == nil || tm.PartnerID != 9 || tm.Partner.Line != 4 || tm.Delayed.ID != 10 || tm.HeldAt.Line != 3 || tm.WaitKind != "func-timer" {
		t.Fatalf("the consumer's select passed over the pending send: timing %+v", tm)
	}
	if s := tm.Summary(); !strings.Contains(s, "kept the select at w.go:3 of goroutine 10 from goroutine 9's operation at w.go:4") {
		t.Errorf("summary %q", s)
	}
	for name, tr := range map[string]*trace.Trace{
		"the partner came after the clock":    run(23, 0),
		"the partner completed before it did": run(17, 25),
	} {
		if tm := TimingOf(tr); tm != nil {
			t.Errorf("%s: timing %+v, want none", name, *tm)
		}
	}
}

// A goroutine the deadline's setter started, that worked on what the setter uses and was
// then parked by goweave's schedule (waiting with reason "sleep", the schedule's park)
// from before the deadline fired until the run ended, was held past it, though no hold was
// recorded (a hold is written when it ends). Not when it waits in anything else at the
// end, nor when it is in a time.Sleep of its own.
func TestTimingOfHeldToTheEnd(t *testing.T) {
	run := func(reason string, ownSleep bool) *trace.Trace {
		tr := &trace.Trace{
			Meta:      map[string]string{"module": "/m"},
			Positions: []trace.Position{{File: "/m/w.go", Line: 3}, {File: "/m/w.go", Line: 4}, {File: "/m/w_test.go", Line: 10}},
			Events: []trace.Event{
				{Kind: trace.KindLock, G: 7, Obj: 50, Pos: 3, Pre: 3, Post: 3},
				{Kind: trace.KindGoSpawn, G: 7, Pos: 1, A: 9, Pre: 6, Post: 6},
				{Kind: trace.KindLock, G: 9, Obj: 50, Pos: 2, Pre: 8, Post: 9},
				{Kind: trace.KindGoSpawn, G: 0, Obj: 6, Pos: 3, A: 11, Pre: 20, Post: 20}, // the deadline fired
				{Kind: trace.KindChanRecv, G: 7, Obj: 12, Pos: 3, Pre: 10, Post: 30},
			},
			Goroutines: []trace.Goroutine{{ID: 9, Status: 4, WaitReason: reason, LastEvent: 2}},
			Timed:      []trace.Timed{{Kind: trace.KindTimedWait, Aux: trace.WaitTimerFunc, Pos: 3, G: 7, Obj: 6, Stamp: 4, Dur: 20 * time.Millisecond}},
		}
		if ownSleep {
			tr.Timed = append(tr.Timed, trace.Timed{Kind: trace.KindTimedWait, Aux: trace.WaitSleep, Pos: 2, G: 9, Stamp: 10, Dur: time.Second})
		}
		return tr
	}
	tm := TimingOf(run("sleep", false))
	if tm == nil || !tm.HeldToEnd || tm.Late || tm.Delayed.ID != 9 || tm.HeldAt.Line != 4 {
		t.Fatalf("held by the schedule from before the deadline to the end: timing %+v", tm)
	}
	if s := tm.Summary(); !strings.Contains(s, "goroutine 9 (started at w.go:3) was held by goweave's schedule after w.go:4 from before the wait expired until the run ended") {
		t.Errorf("summary %q", s)
	}
	for name, tr := range map[string]*trace.Trace{
		"waiting in a receive at the end": run("chan receive", false),
		"in a time.Sleep of its own":      run("sleep", true),
	} {
		if tm := TimingOf(tr); tm != nil {
			t.Errorf("%s: timing %+v, want none", name, *tm)
		}
	}
}
