package campaign

import (
	"slices"
	"testing"

	"github.com/goweave/goweave/analysis"
)

// A stuck lock cycle reported as a cyclic-deadlock and two deadlock findings becomes one
// finding: the cycle's, with the deadlocks' extra position appended and the deadlocks as
// related findings, the strongest confidence, and the runs that showed any of them.
func TestGroupedFindings(t *testing.T) {
	at := func(role string, line int) analysis.Position {
		return analysis.Position{Role: role, File: "/m/inv.go", Line: line}
	}
	cycle := Finding{Finding: analysis.Finding{Kind: "cyclic-deadlock", Confidence: analysis.Predicted, Severity: analysis.SeverityWarning, Fingerprint: "c",
		Positions: []analysis.Position{at("lock", 47), at("held lock", 44), at("held lock", 31), at("lock", 34)}}, ID: "GWc"}
	stuck1 := Finding{Finding: analysis.Finding{Kind: "deadlock", Confidence: analysis.Actual, Fingerprint: "d1",
		Positions: []analysis.Position{at("blocked", 34), at("also blocked", 47), at("also blocked", 20)}}, ID: "GWd1", Run: 3, Trace: "stuck.trace"}
	stuck2 := Finding{Finding: analysis.Finding{Kind: "deadlock", Confidence: analysis.Actual, Fingerprint: "d2",
		Positions: []analysis.Position{at("blocked", 47), at("also blocked", 34), at("also blocked", 20)}}, ID: "GWd2"}
	other := Finding{Finding: analysis.Finding{Kind: "leak-chan", Confidence: analysis.Actual, Fingerprint: "l",
		Positions: []analysis.Position{at("blocked", 90)}}, ID: "GWl"}

	a := &testState{runs: 10, seen: map[string]*seenRuns{}}
	b := &testState{runs: 7, seen: map[string]*seenRuns{}}
	a.noteSeen([]Finding{cycle}, 1)
	a.noteSeen([]Finding{cycle}, 70)
	a.noteSeen([]Finding{stuck1, stuck2}, 70) // one run, two findings of the bug: counted once
	a.noteSeen([]Finding{stuck1, stuck2}, 3)
	b.noteSeen([]Finding{other}, 2)
	c := &campaign{tests: []*testState{a, b}}

	got := c.grouped([]Finding{stuck1, cycle, other, stuck2})
	if len(got) != 2 {
		t.Fatalf("%d findings, want 2: %+v", len(got), got)
	}
	g := got[0]
	if g.ID != "GWc" || g.Confidence != analysis.Actual || g.Severity != analysis.SeverityError {
		t.Errorf("bug: %s %s %s, want the cycle GWc, actual (a deadlock happened), error", g.ID, g.Confidence, g.Severity)
	}
	if g.Run != 3 || g.Trace != "stuck.trace" {
		t.Errorf("evidence: run %d, trace %q; want the deadlock's (run 3, stuck.trace), which shows what the confidence says", g.Run, g.Trace)
	}
	var ids []string
	for _, r := range g.Related {
		ids = append(ids, r.ID)
	}
	if !slices.Equal(ids, []string{"GWd1", "GWd2"}) || g.Related[0].Position.Line != 34 {
		t.Errorf("related %+v, want the two deadlocks at their primary positions", g.Related)
	}
	if len(g.Positions) != 5 || g.Positions[4] != at("also blocked (deadlock)", 20) {
		t.Errorf("positions %+v, want the cycle's 4 and the test's wait at line 20 once", g.Positions)
	}
	if g.SeenIn != 3 || g.HappenedIn != 2 || g.OfRuns != 10 {
		t.Errorf("seen in %d, happened in %d of %d runs; want 3 (runs 1, 3, 70 of the first test), 2 (the deadlocks: 3, 70) of 10", g.SeenIn, g.HappenedIn, g.OfRuns)
	}
	if len(cycle.Positions) != 4 {
		t.Errorf("grouping changed the stored finding's positions: %+v", cycle.Positions)
	}
	if o := got[1]; o.ID != "GWl" || o.SeenIn != 1 || o.HappenedIn != 1 || o.OfRuns != 7 || len(o.Related) != 0 {
		t.Errorf("lone finding %+v, want GWl seen in 1 of 7 runs", o)
	}
	var fresh runSet
	fresh.add(200)
	if fresh.count() != 1 || len(fresh) != 4 {
		t.Errorf("runSet with run 200: %v", fresh)
	}
}

// A panic that happened in exactly the runs of a bug (of its findings together) is that
// bug's symptom; the next campaign, which has no run records of the first, keeps the
// grouping.
func TestSymptomJoinsCauseAcrossCampaigns(t *testing.T) {
	at := func(role string, line int) analysis.Position {
		return analysis.Position{Role: role, File: "/m/crawler.go", Line: line}
	}
	cause := &Finding{Finding: analysis.Finding{Kind: "negative-waitgroup", Confidence: analysis.Actual, Fingerprint: "n", Package: "p", Test: "TestF",
		Positions: []analysis.Position{at("done", 23)}}, ID: "GWn"}
	panicked := &Finding{Finding: analysis.Finding{Kind: "flaky-panic", Confidence: analysis.Actual, Fingerprint: "outcome:p", Package: "p", Test: "TestF",
		Positions: []analysis.Position{at("panic", 27)}}, ID: "GWp"} // a deferred Done panics at the function's end
	other := &Finding{Finding: analysis.Finding{Kind: "negative-waitgroup", Confidence: analysis.Actual, Fingerprint: "n2", Package: "p", Test: "TestF",
		Positions: []analysis.Position{at("done", 23), at("previous add or done", 23)}}, ID: "GWn2"}
	ts := &testState{runs: 9, seen: map[string]*seenRuns{}}
	ts.noteSeen([]Finding{*cause, *panicked}, 2)
	ts.noteSeen([]Finding{*other, *panicked}, 5) // the bug, seen as its other finding
	c := &campaign{tests: []*testState{ts}, findings: map[string]*Finding{"n": cause, "n2": other, "outcome:p": panicked}}
	if got := c.grouped([]Finding{*cause, *panicked, *other}); len(got) != 1 || got[0].ID != "GWn2" {
		t.Fatalf("grouped = %+v, want the panic in the negative-waitgroup's bug (GWn2 names more)", got)
	}
	ts.noteSeen([]Finding{*panicked}, 7) // a panic without the bug: another cause, maybe
	if got := c.grouped([]Finding{*cause, *panicked, *other}); len(got) != 2 {
		t.Errorf("panic in a run without the bug: grouped = %+v, want 2 bugs", got)
	}
	*ts.seen["outcome:p"] = seenRuns{}
	ts.noteSeen([]Finding{*panicked}, 2)
	ts.noteSeen([]Finding{*panicked}, 5)
	c.noteJoins()
	if panicked.JoinedTo != "n2" || cause.JoinedTo != "" {
		t.Errorf("JoinedTo: panic %q, cause %q; want n2 and none", panicked.JoinedTo, cause.JoinedTo)
	}
	next := &campaign{tests: []*testState{{runs: 1, seen: map[string]*seenRuns{}}}}
	if got := next.grouped([]Finding{*cause, *panicked, *other}); len(got) != 1 || got[0].ID != "GWn2" {
		t.Errorf("next campaign: grouped = %+v, want one bug", got)
	}
}
