package campaign

import (
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer/build"
)

// A flaky failure is timing-dependent only when every run in which it happened showed the
// timing evidence: then a warning, not gating, counted apart from bugs and hints, its
// message naming the wait.
func TestTimingNeedsEveryFailingRun(t *testing.T) {
	at := func(role, file string, line int) analysis.Position {
		return analysis.Position{Role: role, File: "/m/" + file, Line: line}
	}
	tm := &analysis.Timing{Wait: "time.Sleep(20ms)", WaitKind: "sleep", WaitMs: 20, At: at("wait", "w_test.go", 12),
		Waiter: analysis.Goroutine{ID: 7}, Delayed: analysis.Goroutine{ID: 9, Spawn: "w.go:16"}, DelayedMs: 21, HeldAt: at("held", "w.go", 17)}
	failure := func(timing *analysis.Timing) Finding {
		return Finding{Finding: analysis.Finding{Kind: "flaky-failure", Confidence: analysis.Actual, Package: "p", Test: "TestX", Fingerprint: "ff",
			Message:   "TestX failed: Value() = 0",
			Positions: []analysis.Position{at("failure", "w_test.go", 14), at("ran after w.go:25 here", "w.go", 17)}, Timing: timing}, ID: "GWf"}
	}
	newCampaign := func() (*campaign, *testState) {
		ts := &testState{bin: &build.TestBinary{Package: "p"}, name: "TestX", statuses: map[string]int{"pass": 5, "fail": 2}, runs: 7, seen: map[string]*seenRuns{}}
		return &campaign{tests: []*testState{ts}}, ts
	}

	c, ts := newCampaign()
	ts.noteSeen([]Finding{failure(tm)}, 2)
	ts.noteSeen([]Finding{failure(tm)}, 5)
	got := c.grouped([]Finding{failure(tm)})
	if len(got) != 1 || got[0].Timing == nil || got[0].Severity != analysis.SeverityWarning || Gating(&got[0]) {
		t.Fatalf("failing runs 2 and 5 both timed: %+v, want a timing-dependent warning that does not gate", got)
	}
	g := got[0]
	if g.Timing.Runs != 2 || !strings.Contains(g.Message, "timing-dependent: the test waits with time.Sleep(20ms) at w_test.go:12; goroutine 9 (started at w.go:16) was delayed 21 ms") {
		t.Errorf("timing %+v, message %q", *g.Timing, g.Message)
	}
	if last := g.Positions[len(g.Positions)-1]; last.Line != 12 || !strings.Contains(last.Role, "time.Sleep(20ms)") {
		t.Errorf("positions %+v, want the Sleep among them", g.Positions)
	}
	if bugs, hints := gatingCount(got); bugs != 0 || hints != 0 || timingCount(got) != 1 {
		t.Errorf("counted %d bugs, %d hints, %d timing", bugs, hints, timingCount(got))
	}

	// One failing run without the evidence (a free run failed too): a bug.
	c, ts = newCampaign()
	ts.noteSeen([]Finding{failure(tm)}, 2)
	ts.noteSeen([]Finding{failure(nil)}, 5)
	if got := c.grouped([]Finding{failure(tm)}); got[0].Timing != nil || got[0].Severity != analysis.SeverityError || !Gating(&got[0]) {
		t.Errorf("run 5 failed without a hold over the wait: %+v, want an error that gates", got[0])
	}

	// An earlier campaign's verdict stands while this campaign did not see it happen.
	c, _ = newCampaign()
	earlier := failure(tm)
	earlier.Earlier = true
	if got := c.grouped([]Finding{earlier}); got[0].Timing == nil {
		t.Error("an earlier campaign's timing-dependent failure became a bug")
	}
}

// The related positions a timing verdict adds say what the evidence is: a hold of the
// schedule, a goroutine late by the machine (never "held by the schedule"), or a select
// kept from a ready partner, with that partner's operation as a position too.
func TestMarkTimingPositionsSayWhatDelayed(t *testing.T) {
	at := func(file string, line int) analysis.Position {
		return analysis.Position{File: "/m/" + file, Line: line}
	}
	roles := func(tm *analysis.Timing) []string {
		f := &Finding{Finding: analysis.Finding{Kind: "flaky-failure", Positions: []analysis.Position{at("w_test.go", 30)}}}
		markTiming(f, tm, map[string]bool{"/m/w_test.go:30": true})
		var out []string
		for _, p := range f.Positions[1:] {
			out = append(out, p.Role)
		}
		return out
	}
	late := &analysis.Timing{Wait: "time.Sleep(20ms)", WaitKind: "sleep", At: at("w_test.go", 12), DelayedMs: 20, HeldAt: at("w.go", 17), Late: true}
	if got := roles(late); len(got) != 2 || got[1] != "timing: late 20 ms or more (not held by the schedule)" {
		t.Errorf("late: roles %q", got)
	}
	passed := &analysis.Timing{Wait: "a timer of 20ms (time.AfterFunc or a context's deadline)", WaitKind: "func-timer", At: at("w_test.go", 12),
		HeldAt: at("w.go", 27), Partner: &analysis.Position{File: "/m/w.go", Line: 17}, PartnerID: 9}
	if got := roles(passed); len(got) != 3 || got[1] != "timing: kept by the schedule from a ready partner" || got[2] != "timing: the ready partner" {
		t.Errorf("passed over: roles %q", got)
	}
	clock := &analysis.Timing{Wait: "a wall-clock measurement of 30.6ms where the test allows 20ms", WaitKind: "clock", At: at("w_test.go", 30), DelayedMs: 31, HeldAt: at("w.go", 15)}
	if got := roles(clock); len(got) != 1 || got[0] != "timing: held 31 ms by the schedule" {
		t.Errorf("clock (the failure's own line is not repeated): roles %q", got)
	}
}
