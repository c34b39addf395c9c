package analysis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis/trace"
)

// A measured duration is written with more digits than a bound; the bound is the largest
// round duration below it. A message with a measurement but no bound, or only round
// durations, reports no wall-clock assertion.
func TestMeasuredOf(t *testing.T) {
	for msg, want := range map[string]measurement{
		"Max difference between 2026-11-27 19:36:43.547191925 +0000 UTC m=+0.011326294 and 2026-11-27 19:36:43.755054485 +0000 UTC m=+0.219188864 allowed is 100ms, but difference was -207.86257ms": {207860000 + 2570, 100 * time.Millisecond},
		"Expected usedAt difference to be around 100ms (±50ms for cache, ±5ms for sleep), got 196.707171ms":                                                                                          {196707171, 100 * time.Millisecond},
		"elapsed 1.234567s, want at most 1s and at least 500ms": {1234567000, time.Second},
	} {
		got, ok := measuredOf(msg)
		if !ok || got != want {
			t.Errorf("%q: %v %v, want %v", msg, got, ok, want)
		}
	}
	for _, msg := range []string{
		"Expected nil context after cancel, got context.Background.WithDeadline(2026-11-27 20:06:43.291087378 +0000 UTC m=+0.106742335 [89.399745ms])", // no bound
		"timed out after 1s waiting for the result",     // a bound, nothing measured
		"took 1.5s, want under 1s",                      // written round: not read off the clock
		"Not equal: expected 3, actual 2 (at 12:04:05)", // no duration at all
	} {
		if m, ok := measuredOf(msg); ok {
			t.Errorf("%q: %v, want no measurement", msg, m)
		}
	}
}

// measuredTrace: the test goroutine 7 (its sleep at position 3) and a worker 9 started at
// w.go:3, held before w.go:4 (position 2).
func measuredTrace(events []trace.Event, ts ...trace.Timed) *trace.Trace {
	return &trace.Trace{
		Meta:      map[string]string{"module": "/m"},
		Positions: []trace.Position{{File: "/m/w.go", Line: 3}, {File: "/m/w.go", Line: 4}, {File: "/m/w_test.go", Line: 10}},
		Events:    append([]trace.Event{{Kind: trace.KindGoSpawn, G: 7, Pos: 1, A: 9, Pre: 1, Post: 1}}, events...),
		Timed:     ts,
	}
}

// A wall-clock assertion whose overrun goweave's holds of one goroutine cover, within a span
// as long as the measurement, is timing-dependent; holds that fall short, or are spread over
// more than the measured span, are not evidence.
func TestTimingForWallClockAssertion(t *testing.T) {
	const msg = "TestBulkRead failed: Max difference between 2026-11-27 19:36:43.547191925 +0000 UTC m=+0.011326294 and 2026-11-27 19:36:43.755054485 +0000 UTC m=+0.219188864 allowed is 100ms, but difference was -207.86257ms"
	failed := &Finding{Kind: "flaky-failure", Confidence: Actual, Message: msg, Positions: []Position{{Role: "failure", File: "/m/read_test.go", Line: 87}}}
	held := func(start int64, d time.Duration) trace.Timed {
		return trace.Timed{Kind: trace.KindHold, Aux: uint16(trace.KindLock), Pos: 2, G: 9, Stamp: 50, Start: start, Dur: d}
	}
	tm := TimingFor(measuredTrace(nil, held(ms1, 80*time.Millisecond), held(100*ms1, 40*time.Millisecond)), failed)
	if tm == nil {
		t.Fatal("no timing: goroutine 9 was held 120 ms of a measurement 108 ms over its bound")
	}
	if tm.WaitKind != "clock" || tm.MeasuredMs != 207.862 || tm.WaitMs != 100 || tm.DelayedMs != 120 || tm.Late ||
		tm.At.Line != 87 || tm.HeldAt.Line != 4 || tm.Delayed != (Goroutine{ID: 9, Spawn: "w.go:3"}) {
		t.Errorf("timing %+v", *tm)
	}
	if s := tm.Summary(); !strings.Contains(s, "the test measured 208 ms on the clock at read_test.go:87 where it allows 100 ms; goroutine 9 (started at w.go:3) was delayed 120 ms by goweave's schedule") {
		t.Errorf("summary %q", s)
	}
	for name, tr := range map[string]*trace.Trace{
		"held less than the overrun":        measuredTrace(nil, held(ms1, 80*time.Millisecond)),
		"holds further apart than measured": measuredTrace(nil, held(ms1, 80*time.Millisecond), held(400*ms1, 40*time.Millisecond)),
	} {
		if tm := TimingFor(tr, failed); tm != nil {
			t.Errorf("%s: timing %+v, want none", name, *tm)
		}
	}
	// The same holds, a failure that reports no measurement: not a wall-clock assertion.
	plain := *failed
	plain.Message = "TestBulkRead failed: Should be false"
	if tm := TimingFor(measuredTrace(nil, held(ms1, 80*time.Millisecond), held(100*ms1, 40*time.Millisecond)), &plain); tm != nil {
		t.Errorf("a failure without a measurement: timing %+v, want none", *tm)
	}
}

// With no hold to cover it, a measurement across the test's own time.Sleep (written in its
// Test function) is the machine's delay when the test waited for nothing after the sleep;
// one that then waited for another goroutine (a receive it parked in) may have measured
// that goroutine, not the machine.
func TestTimingForWallClockAssertionLate(t *testing.T) {
	file := filepath.Join(t.TempDir(), "used_test.go")
	src := "package m\n\nimport \"testing\"\n\nfunc TestUsedAt(t *testing.T) {\n" + strings.Repeat("\t_ = t\n", 50) + "}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	failed := &Finding{Kind: "flaky-failure", Confidence: Actual,
		Message:   "TestUsedAt failed: Expected usedAt difference to be around 100ms (±50ms for cache, ±5ms for sleep), got 196.707171ms",
		Positions: []Position{{Role: "failure", File: file, Line: 51}}}
	slept := trace.Timed{Kind: trace.KindTimedWait, Aux: trace.WaitSleep, Pos: 3, G: 7, Stamp: 10, Dur: 100 * time.Millisecond}
	run := func(events ...trace.Event) *trace.Trace {
		tr := measuredTrace(nil, slept)
		tr.Positions[2].File = file
		tr.Events = events // no worker: the test alone
		return tr
	}
	tm := TimingFor(run(), failed)
	if tm == nil {
		t.Fatal("no timing: the test measured 197 ms across its 100 ms sleep and waited for nothing after it")
	}
	if tm.WaitKind != "clock" || !tm.Late || tm.SleptMs != 100 || tm.DelayedMs != 96.707 || tm.Delayed.ID != 7 || tm.HeldAt.Line != 10 {
		t.Errorf("timing %+v", *tm)
	}
	if s := tm.Summary(); !strings.Contains(s, "across its time.Sleep(100ms) at used_test.go:10") || !strings.Contains(s, "the machine delayed it 97 ms") {
		t.Errorf("summary %q", s)
	}
	parked := run(
		trace.Event{Kind: trace.KindChanRecv, G: 7, Obj: 40, Pos: 3, Pre: 20, Post: 23},
		trace.Event{Kind: trace.KindChanSend, G: 12, Obj: 40, Pos: 2, Pre: 21, Post: 22})
	if tm := TimingFor(parked, failed); tm != nil {
		t.Errorf("the test waited for goroutine 12 after its sleep: timing %+v, want none", *tm)
	}
}

// A bound stated below the sleep ("around 100 (±50ms ...)": 50ms is the largest round
// duration the message gives) still has the sleep the measurement spans; a sleep shorter
// than half the bound is not the one the assertion is about.
func TestTimingForWallClockAssertionSleepAboveBound(t *testing.T) {
	file := filepath.Join(t.TempDir(), "used_test.go")
	src := "package m\n\nimport \"testing\"\n\nfunc TestUsedAt(t *testing.T) {\n" + strings.Repeat("\t_ = t\n", 50) + "}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(sleep time.Duration) *trace.Trace {
		tr := measuredTrace(nil, trace.Timed{Kind: trace.KindTimedWait, Aux: trace.WaitSleep, Pos: 3, G: 7, Stamp: 10, Dur: sleep})
		tr.Positions[2].File = file
		tr.Events = nil
		return tr
	}
	failed := &Finding{Kind: "flaky-failure", Confidence: Actual,
		Message:   "TestUsedAt failed: Expected usedAt difference to be around 100 (±50ms for cache) (+-5ms for sleep precision), got 165.582461ms",
		Positions: []Position{{Role: "failure", File: file, Line: 51}}}
	if tm := TimingFor(run(100*time.Millisecond), failed); tm == nil || !tm.Late || tm.SleptMs != 100 || tm.WaitMs != 50 {
		t.Errorf("a 100 ms sleep measured as 166 ms: timing %+v", tm)
	}
	if tm := TimingFor(run(20*time.Millisecond), failed); tm != nil {
		t.Errorf("a 20 ms sleep against a 50 ms bound: timing %+v, want none", *tm)
	}
}
