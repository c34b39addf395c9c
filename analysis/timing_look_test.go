package analysis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis/trace"
)

// lookTrace: goroutine 7 makes a timer of d (channel 5) right before its select at w.go:4
// (position 2), which takes case took; ready says which of its cases (0: channel 4, 1: the
// timer's) were ready when it looked. between are goroutine 7's operations between the
// timer and the select.
func lookTrace(d time.Duration, took uint64, ready [2]bool, between ...trace.Event) *trace.Trace {
	events := []trace.Event{{Kind: trace.KindChanMake, G: 7, Obj: 5, Pos: 3, Pre: 40, Post: 40}}
	events = append(events, between...)
	events = append(events,
		trace.Event{Kind: trace.KindTimerSet, G: 7, Obj: 6, Pos: 3, Pre: 42, Post: 42},
		trace.Event{Kind: trace.KindSelect, G: 7, Pos: 2, Pre: 44, Post: 45, A: took, Aux: 2,
			Cases: []trace.Case{{Index: 0, Obj: 4, Ready: ready[0]}, {Index: 1, Obj: 5, Ready: ready[1]}}})
	return &trace.Trace{
		Meta:      map[string]string{"module": "/m"},
		Positions: []trace.Position{{File: "/m/w.go", Line: 3}, {File: "/m/w_test.go", Line: 20}, {File: "/m/w_test.go", Line: 23}},
		Events:    events,
		Timed:     []trace.Timed{{Kind: trace.KindTimedWait, Aux: trace.WaitTimerChan, Pos: 3, G: 7, Obj: 5, Stamp: 41, Dur: d}},
	}
}

// A select that took its time.After's case, already ready when it first looked while the
// other case was ready too, was delayed for the timer's whole duration between the two:
// timing-dependent. Not when the other case was not ready (nothing else could have won),
// when the timer's case was not ready at the look, when it took the other case, when the
// goroutine did something else between setting the timer and the select (a timer set
// earlier may have been reset), or for a timer due at once.
func TestTimingOfTimerExpiredAtLook(t *testing.T) {
	tm := TimingOf(lookTrace(time.Millisecond, 1, [2]bool{true, true}))
	if tm == nil {
		t.Fatal("no timing: the timer's case and the other were both ready at the look")
	}
	if !tm.ExpiredAtLook || !tm.Late || tm.WaitKind != "timer" || tm.WaitMs != 1 || tm.At.Line != 23 || tm.HeldAt.Line != 20 || tm.Delayed.ID != 7 {
		t.Errorf("timing %+v", *tm)
	}
	if s := tm.Summary(); !strings.Contains(s, "it had expired when the select at w_test.go:20 first looked, with another case ready too") {
		t.Errorf("summary %q", s)
	}
	for name, tr := range map[string]*trace.Trace{
		"the other case not ready":        lookTrace(time.Millisecond, 1, [2]bool{false, true}),
		"the timer's case not ready":      lookTrace(time.Millisecond, 1, [2]bool{true, false}),
		"took the other case":             lookTrace(time.Millisecond, 0, [2]bool{true, true}),
		"a timer due at once":             lookTrace(1, 1, [2]bool{true, true}),
		"a lock between timer and select": lookTrace(time.Millisecond, 1, [2]bool{true, true}, trace.Event{Kind: trace.KindLock, G: 7, Obj: 50, Pos: 2, Pre: 41, Post: 43}),
	} {
		if tm := TimingOf(tr); tm != nil {
			t.Errorf("%s: timing %+v, want none", name, *tm)
		}
	}
}

// A context's deadline (a function timer whose fire closes a Done channel) that expired
// while goweave held a producer is timing-dependent when a goroutine the deadline stopped
// (one that receives from that Done channel) consumes what the producer was about to hand
// over, though the goroutine that set the deadline never touches it; not when no stopped
// goroutine shares anything with the held operation.
func TestTimingOfDeadlineStopsConsumer(t *testing.T) {
	run := func(consumed uint64) *trace.Trace {
		return &trace.Trace{
			Meta:      map[string]string{"module": "/m"},
			Positions: []trace.Position{{File: "/m/w.go", Line: 3}, {File: "/m/w.go", Line: 4}, {File: "/m/w_test.go", Line: 10}},
			Events: []trace.Event{
				{Kind: trace.KindGoSpawn, G: 7, Pos: 1, A: 9, Pre: 1, Post: 1},
				{Kind: trace.KindGoSpawn, G: 7, Pos: 1, A: 12, Pre: 2, Post: 2},
				{Kind: trace.KindGoSpawn, G: 0, Obj: 6, Pos: 3, A: 11, Pre: 60, Post: 60}, // the deadline fired
				{Kind: trace.KindChanClose, G: 11, Obj: 20, Pos: 3, Pre: 61, Post: 62},    // ctx.Done closed
				{Kind: trace.KindSelect, G: 12, Pos: 1, Pre: 55, Post: 63, A: 0, Aux: 2,
					Cases: []trace.Case{{Index: 0, Obj: 20}, {Index: 1, Obj: consumed}}},
				{Kind: trace.KindChanSend, G: 9, Obj: 30, Pos: 2, Pre: 70, Post: 71}, // the held producer
			},
			Timed: []trace.Timed{
				{Kind: trace.KindTimedWait, Aux: trace.WaitTimerFunc, Pos: 3, G: 7, Obj: 6, Stamp: 5, Start: 0, Dur: 10 * time.Millisecond},
				{Kind: trace.KindHold, Aux: uint16(trace.KindChanSend), Pos: 2, G: 9, Stamp: 69, Start: ms1, Dur: 12 * time.Millisecond},
			},
		}
	}
	tm := TimingOf(run(30))
	if tm == nil {
		t.Fatal("no timing: the deadline stopped goroutine 12, the consumer of the held send")
	}
	if tm.WaitKind != "func-timer" || tm.Delayed.ID != 9 || tm.HeldAt.Line != 4 || tm.At.Line != 10 {
		t.Errorf("timing %+v", *tm)
	}
	if tm := TimingOf(run(31)); tm != nil {
		t.Errorf("the stopped goroutine consumes another channel: timing %+v, want none", *tm)
	}
}

// A time.After recorded as already due when it was set (1 ns) is late by the duration its
// source asks for, when the source spells it out; a time.After(0) is due at once.
func TestTimingOfTimerDueWhenSet(t *testing.T) {
	file := filepath.Join(t.TempDir(), "w_test.go")
	src := "package m\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nfunc TestX(t *testing.T) {\n\t_ = time.After(2 * time.Millisecond)\n\t_ = time.After(0)\n}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	at := func(line int) *trace.Trace {
		tr := lookTrace(1, 1, [2]bool{true, true})
		tr.Positions[2] = trace.Position{File: file, Line: line}
		return tr
	}
	if tm := TimingOf(at(9)); tm == nil || !tm.ExpiredAtLook || tm.WaitMs != 2 {
		t.Errorf("time.After(2 * time.Millisecond) due when set: timing %+v", tm)
	}
	if tm := TimingOf(at(10)); tm != nil {
		t.Errorf("time.After(0): timing %+v, want none", *tm)
	}
}
