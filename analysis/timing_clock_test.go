package analysis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis/trace"
)

// A select a preference held, while another case was ready, until its clock's case came
// (the hold names that case's channel): a timer's channel, or a Done channel that a
// context's deadline closed, expiring inside the hold is the run's timing. Any other
// channel's case, or a clock expiring outside the hold, is not.
func TestTimingOfClockPreference(t *testing.T) {
	pref := func(ch uint64, start int64, d time.Duration) trace.Timed {
		return trace.Timed{Kind: trace.KindHold, Aux: uint16(trace.KindSelect), Pos: 2, G: 9, Obj: ch, Stamp: 82, Start: start, Dur: d}
	}
	timer := func(aux uint16, obj uint64) trace.Timed {
		return trace.Timed{Kind: trace.KindTimedWait, Aux: aux, Pos: 3, G: 9, Obj: obj, Start: 0, Dur: 10 * time.Millisecond}
	}
	sel := trace.Event{Kind: trace.KindSelect, G: 9, Pos: 2, Pre: 79, Post: 81, A: 1, Aux: 2,
		Cases: []trace.Case{{Index: 0, Obj: 4}, {Index: 1, Obj: 5}}}
	tm := TimingOf(timingTrace([]trace.Event{sel}, timer(trace.WaitTimerChan, 5), pref(5, ms1, 10*time.Millisecond)))
	if tm == nil || tm.WaitKind != "timer" || tm.Delayed.ID != 9 || tm.HeldAt.Line != 4 {
		t.Errorf("a select held for its timer's case: timing %+v", tm)
	}
	for name, tr := range map[string]*trace.Trace{
		"held for another channel's case": timingTrace([]trace.Event{sel}, timer(trace.WaitTimerChan, 5), pref(4, ms1, 10*time.Millisecond)),
		"the timer expired before":        timingTrace([]trace.Event{sel}, timer(trace.WaitTimerChan, 5), pref(5, 11*ms1, time.Millisecond)),
		"a timer that never fired": func() *trace.Trace {
			s := sel
			s.A = 0
			return timingTrace([]trace.Event{s}, timer(trace.WaitTimerChan, 5), pref(5, ms1, 10*time.Millisecond))
		}(),
		"a function timer that closed nothing": timingTrace([]trace.Event{sel,
			{Kind: trace.KindGoSpawn, G: 0, Obj: 6, Pos: 3, Pre: 70, Post: 70, A: 11}},
			timer(trace.WaitTimerFunc, 6), pref(5, ms1, 10*time.Millisecond)),
	} {
		if tm := TimingOf(tr); tm != nil {
			t.Errorf("%s: timing %+v, want none", name, *tm)
		}
	}
	// A context's deadline: its timer's goroutine closes the Done channel (5) the select
	// was held for.
	ctx := timingTrace([]trace.Event{sel,
		{Kind: trace.KindGoSpawn, G: 0, Obj: 6, Pos: 3, Pre: 70, Post: 70, A: 11},
		{Kind: trace.KindChanClose, G: 11, Obj: 5, Pos: 3, Pre: 71, Post: 71}},
		timer(trace.WaitTimerFunc, 6), pref(5, ms1, 10*time.Millisecond))
	if tm := TimingOf(ctx); tm == nil || tm.WaitKind != "func-timer" {
		t.Errorf("a select held for the Done case a context's deadline closed: timing %+v", tm)
	}
}

// A deadlock is timing-dependent only when all of its operations are the Test function's
// and its sleep, used as a barrier between its own goroutines, expired while the schedule
// held one of them; never by a timer (a timeout path that deadlocks is the module's bug),
// never a prediction or another kind (a send or close on a closed channel included).
func TestTimingForClockOrderedKinds(t *testing.T) {
	// w_test.go:10 sleeps (position 3), in its Test function (lines 10-35); the worker is
	// held before its Lock of mutex 50, which the test locks too.
	file := filepath.Join(t.TempDir(), "w_test.go")
	src := "package m\n\nimport \"testing\"\n\ntype srv struct{}\n\nfunc (srv) shutdown() {\n}\n\nfunc TestX(t *testing.T) {\n" +
		strings.Repeat("\t_ = t\n", 24) + "}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(ts ...trace.Timed) *trace.Trace {
		tr := timingTrace(nil, ts...)
		tr.Positions[2].File, tr.Positions[3].File = file, file
		return tr
	}
	inTest := []Position{{Role: "send", File: file, Line: 20}, {Role: "close", File: file, Line: 35}}
	slept := run(sleep(7, 0, 20*time.Millisecond), hold(9, ms1, 21*time.Millisecond))
	dl := &Finding{Kind: "deadlock", Confidence: Actual, Positions: inTest}
	if tm := TimingFor(slept, dl); tm == nil || tm.WaitKind != "sleep" {
		t.Errorf("a deadlock of the test's goroutines after its sleep expired in a hold: timing %+v", tm)
	}
	// A send or close on a closed channel stays a bug: a close after a sleep "for the
	// sender" is the unordered close (lsp/testdata/buggy).
	for _, kind := range []string{"send-on-closed", "close-of-closed"} {
		if tm := TimingFor(slept, &Finding{Kind: kind, Confidence: Actual, Positions: inTest}); tm != nil {
			t.Errorf("%s after the test's sleep expired in a hold: timing %+v, want none", kind, *tm)
		}
	}
	// The held worker's Lock is of another mutex than the test's, but the worker goes on
	// to receive from the channel (60) the test sends on: still the goroutine the test
	// waited for.
	later := run(sleep(7, 0, 20*time.Millisecond), hold(9, ms1, 21*time.Millisecond))
	later.Events[2].Obj = 51
	later.Events = append(later.Events,
		trace.Event{Kind: trace.KindChanRecv, G: 9, Pos: 2, Obj: 60, Pre: 80, Post: 90},
		trace.Event{Kind: trace.KindChanSend, G: 7, Pos: 4, Obj: 60, Pre: 85, Post: 90})
	if TimingFor(later, dl) == nil {
		t.Error("a deadlock whose held goroutine later uses the sleeper's channel: no timing")
	}
	timer := trace.Timed{Kind: trace.KindTimedWait, Aux: trace.WaitTimerChan, Pos: 3, G: 7, Obj: 5, Start: 0, Dur: 20 * time.Millisecond}
	fire := trace.Event{Kind: trace.KindTimerFire, Obj: 5, Pos: 3, Pre: 2, Post: 2, A: 1}
	for name, c := range map[string]struct {
		tr *trace.Trace
		f  *Finding
	}{
		"an operation outside the test's files": {slept, &Finding{Kind: "deadlock", Confidence: Actual,
			Positions: []Position{{File: "/m/w.go", Line: 4}, {File: file, Line: 30}}}},
		// A method of a type in the _test.go file (a corpus kernel keeps its program there):
		// code under test, not the test's scaffolding.
		"an operation in a method of a _test.go file": {slept, &Finding{Kind: "deadlock", Confidence: Actual,
			Positions: []Position{{File: file, Line: 7}, {File: file, Line: 30}}}},
		"an operation after the Test function": {slept, &Finding{Kind: "deadlock", Confidence: Actual,
			Positions: []Position{{File: file, Line: 20}, {File: file, Line: 36}}}},
		"a predicted deadlock": {slept, &Finding{Kind: "deadlock", Confidence: Predicted, Positions: inTest}},
		"a data race":          {slept, &Finding{Kind: "data-race", Confidence: Actual, Positions: inTest}},
		"a timer, not a sleep": {timingTrace([]trace.Event{fire}, timer, hold(9, ms1, 30*time.Millisecond)), dl},
		"a sleep in the module's code": {func() *trace.Trace {
			tr := run(sleep(7, 0, 20*time.Millisecond), hold(9, ms1, 21*time.Millisecond))
			tr.Positions[2].File = "/m/w.go"
			return tr
		}(), dl},
		"a sleep in a method of the _test.go file": {func() *trace.Trace {
			tr := run(sleep(7, 0, 20*time.Millisecond), hold(9, ms1, 21*time.Millisecond))
			tr.Positions[2].Line = 7
			return tr
		}(), dl},
		"a held goroutine that never meets the sleeper": {func() *trace.Trace {
			tr := run(sleep(7, 0, 20*time.Millisecond), hold(9, ms1, 21*time.Millisecond))
			tr.Events[2].Obj = 51
			return tr
		}(), dl},
	} {
		if tm := TimingFor(c.tr, c.f); tm != nil {
			t.Errorf("%s: timing %+v, want none", name, *tm)
		}
	}
	// The outcome kinds keep TimingOf's evidence, timers included.
	flaky := &Finding{Kind: "flaky-failure", Confidence: Actual, Positions: []Position{{File: "/m/w.go", Line: 4}}}
	if TimingFor(timingTrace([]trace.Event{fire}, timer, hold(9, ms1, 30*time.Millisecond)), flaky) == nil {
		t.Error("a flaky failure after a timer expired in a hold: no timing")
	}
	if !TimingKind("deadlock") || !TimingKind("flaky-panic") || TimingKind("data-race") || TimingKind("leak-chan") || TimingKind("send-on-closed") {
		t.Error("TimingKind")
	}
}

// A select that a preference held, while another case was ready, until its ticker's tick
// came is the run's timing (a tick moved ahead of a ready item). A ticker ticking during
// other goroutines' holds is not (a janitor's 1 ms ticker would make every hold evidence),
// nor a preference for another channel, nor a hold that ended before the first tick.
func TestTimingOfTickerPreference(t *testing.T) {
	ticker := trace.Timed{Kind: trace.KindTimedWait, Aux: trace.WaitTicker, Pos: 3, G: 9, Obj: 5, Start: 0, Dur: time.Millisecond}
	pref := func(ch uint64, start int64, d time.Duration) trace.Timed {
		return trace.Timed{Kind: trace.KindHold, Aux: uint16(trace.KindSelect), Pos: 2, G: 9, Obj: ch, Stamp: 80, Start: start, Dur: d}
	}
	tm := TimingOf(timingTrace(nil, ticker, pref(5, 3*ms1, 2*time.Millisecond)))
	if tm == nil || tm.WaitKind != "ticker" || tm.WaitMs != 1 || tm.Delayed.ID != 9 || tm.HeldAt.Line != 4 || tm.At.Line != 10 {
		t.Fatalf("a select held until its ticker's tick: timing %+v", tm)
	}
	if s := tm.Summary(); s != "goroutine 9 (started at w.go:3) was held by goweave's schedule 2.0 ms before w.go:4, which waits on a ticker of 1ms (time.NewTicker or time.Tick) at w_test.go:10, while it ticked" {
		t.Errorf("summary %q", s)
	}
	for name, tr := range map[string]*trace.Trace{
		// The test's worker held before its Lock over many ticks of a janitor's ticker.
		"ticks during another goroutine's hold": timingTrace(nil, ticker, hold(9, ms1, 30*time.Millisecond)),
		"held for another channel's case":       timingTrace(nil, ticker, pref(4, 3*ms1, 2*time.Millisecond)),
		"held before the first tick":            timingTrace(nil, func() trace.Timed { w := ticker; w.Dur = 10 * time.Millisecond; return w }(), pref(5, 0, 2*time.Millisecond)),
	} {
		if tm := TimingOf(tr); tm != nil {
			t.Errorf("%s: timing %+v, want none", name, *tm)
		}
	}
	// The goroutine about to select on the ticker's channel, held by a delay (no
	// preference) for more than a period: a tick came during the hold, but whether another
	// case was ready is not known (a janitor's select): no evidence.
	sel := trace.Event{Kind: trace.KindSelect, G: 9, Pos: 2, Pre: 79, Post: 81, A: 1, Aux: 2,
		Cases: []trace.Case{{Index: 0, Obj: 4}, {Index: 1, Obj: 5}}}
	delay := trace.Timed{Kind: trace.KindHold, Aux: uint16(trace.KindSelect), Pos: 2, G: 9, Stamp: 78, Start: 3 * ms1, Dur: 30 * time.Millisecond}
	if tm := TimingOf(timingTrace([]trace.Event{sel}, ticker, delay)); tm != nil {
		t.Errorf("the ticker's select held by a delay over many ticks: timing %+v", *tm)
	}
	// Never for a deadlock: a tick is no barrier.
	f := &Finding{Kind: "deadlock", Confidence: Actual, Positions: []Position{{File: "/m/w_test.go", Line: 20}}}
	if tm := TimingFor(timingTrace(nil, ticker, pref(5, 3*ms1, 2*time.Millisecond)), f); tm != nil {
		t.Errorf("a deadlock with a ticker's preference hold: timing %+v", *tm)
	}
}

// The goroutine that made a context with a deadline, held past it right before a select on
// the context's Done channel, finds the deadline passed: its timing, as for its own timer's
// channel. Held before a select on another channel, not.
func TestTimingOfOwnContextDeadline(t *testing.T) {
	deadline := trace.Timed{Kind: trace.KindTimedWait, Aux: trace.WaitTimerFunc, Pos: 3, G: 9, Obj: 6, Start: 0, Dur: 10 * time.Millisecond}
	held := trace.Timed{Kind: trace.KindHold, Aux: uint16(trace.KindSelect), Pos: 2, G: 9, Stamp: 78, Start: ms1, Dur: 15 * time.Millisecond}
	run := func(done uint64) *trace.Trace {
		return timingTrace([]trace.Event{
			{Kind: trace.KindGoSpawn, G: 0, Obj: 6, Pos: 3, Pre: 70, Post: 70, A: 11},
			{Kind: trace.KindChanClose, G: 11, Obj: 5, Pos: 3, Pre: 71, Post: 71},
			{Kind: trace.KindSelect, G: 9, Pos: 2, Pre: 79, Post: 81, A: 1, Aux: 2, Cases: []trace.Case{{Index: 0, Obj: 4}, {Index: 1, Obj: done}}},
		}, deadline, held)
	}
	if tm := TimingOf(run(5)); tm == nil || tm.WaitKind != "func-timer" || tm.Delayed.ID != 9 {
		t.Errorf("held past its own context's deadline before a select on its Done: timing %+v", tm)
	}
	if tm := TimingOf(run(7)); tm != nil {
		t.Errorf("held past its own context's deadline before a select on another channel: timing %+v", *tm)
	}
}

// A timer already due when its goroutine set it (recorded as 1 ns) is said so.
func TestTimingOfDueTimer(t *testing.T) {
	due := trace.Timed{Kind: trace.KindTimedWait, Aux: trace.WaitTimerChan, Pos: 3, G: 7, Obj: 5, Start: 2 * ms1, Dur: 1}
	fire := trace.Event{Kind: trace.KindTimerFire, Obj: 5, Pos: 3, Pre: 2, Post: 2, A: 1}
	tm := TimingOf(timingTrace([]trace.Event{fire}, due, hold(9, ms1, 30*time.Millisecond)))
	if tm == nil || tm.Wait != "a timer already due when it was set (time.After or time.NewTimer)" {
		t.Errorf("a timer due when set, expiring in the worker's hold: timing %+v", tm)
	}
}

// A preference that held a select for a case another goroutine's wait was due to serve,
// while another case (the caller's own, already expired, deadline) was ready, is a hold
// like a delay: that goroutine's wait expired inside it (tunny's TestTimeout: a 1 ns
// deadline beaten by a 1 ms job because the caller was held 3 ms for the job's result).
func TestTimingOfPreferenceHoldForAnotherGoroutine(t *testing.T) {
	work := trace.Timed{Kind: trace.KindTimedWait, Aux: trace.WaitSleep, Pos: 3, G: 9, Start: 0, Dur: time.Millisecond}
	// The runtime writes the hold once the select completed with the preferred case.
	pref := trace.Timed{Kind: trace.KindHold, Aux: uint16(trace.KindSelect), Pos: 4, G: 7, Obj: 60, Stamp: 81, Start: ms1 / 2, Dur: 3 * time.Millisecond}
	events := []trace.Event{
		{Kind: trace.KindChanSend, G: 9, Pos: 2, Obj: 60, Pre: 75, Post: 80},
		{Kind: trace.KindSelect, G: 7, Pos: 4, Pre: 76, Post: 80, A: 0, Aux: 2, Cases: []trace.Case{{Index: 0, Obj: 60}, {Index: 1, Obj: 5}}},
	}
	if tm := TimingOf(timingTrace(events, work, pref)); tm == nil || tm.Delayed.ID != 7 || tm.Waiter.ID != 9 {
		t.Errorf("the caller held for the worker's result while the worker's wait expired: timing %+v", tm)
	}
	events[0].Obj = 61 // the worker never serves that case
	if tm := TimingOf(timingTrace(events, work, pref)); tm != nil {
		t.Errorf("a preference for a case the waiter never touches: timing %+v", *tm)
	}
}
