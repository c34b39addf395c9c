package campaign

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/build"
	"github.com/goweave/goweave/fuzzer/run"
)

// Tests that pass their first run and fail every later one for the state it left (a lock
// file made with O_EXCL, an Example printing a counter it increments) are an error of the
// campaign naming the state, not flaky failures, and are not run on to their budget; a
// test that passes every run is fuzzed as before.
func TestStateLeftBehindIsAnError(t *testing.T) {
	fakeAnalysis(t)
	cfg := fakeConfig(t)
	t.Setenv("TMPDIR", t.TempDir()) // the tests' lock and counter files, fresh
	cfg.Dir, cfg.Strategy, cfg.RunsPerTest = "testdata/leftstate", "record", 30
	rep, err := Fuzz(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"TestLock", "Example_counter"} {
		tr := testResult(rep, name)
		// the verdict after both replays of the pass and 5 unsteered failures: 8 runs, or 9
		// when -p 2 had one more under way
		if f := tr.FailsAfter; f == nil || f.PassedFirst != 1 || f.Replayed != replayRuns || f.Runs < replayRuns+replayedUnsteered || f.Runs > replayRuns+replayedUnsteered+1 ||
			!f.Unsteered || tr.Statuses["pass"] != 1 || tr.Runs >= cfg.RunsPerTest || tr.Failing != nil {
			t.Errorf("%s %+v (failsAfter %+v): want it stopped after its first pass and %d failures, 2 of them replays, failsAfter set", name, tr, tr.FailsAfter, replayRuns+replayedUnsteered)
		}
		i := slices.IndexFunc(rep.Errors, func(e string) bool { return strings.HasPrefix(e, "leftstate."+name+" ") })
		if i < 0 {
			t.Errorf("errors %q: none names %s", rep.Errors, name)
			continue
		}
		for _, want := range []string{" fails in every run after the first (1 run passed, then ", " of them under no schedule, 2 replaying the schedule of run 1, which passed; not fuzzed further",
			"the test depends on state an earlier run left behind (a database, a file, a port), not on the schedule",
			"run it with go test -count=2 -run '^(" + name + ")$' to see"} {
			if !strings.Contains(rep.Errors[i], want) {
				t.Errorf("error %q, want %q in it", rep.Errors[i], want)
			}
		}
	}
	if e := strings.Join(rep.Errors, "\n"); !strings.Contains(e, "leftstate_test.go:22: TestLock failed: lock: open ") || !strings.Contains(e, `Example_counter's output differs`) {
		t.Errorf("errors %q: want each failure named", rep.Errors)
	}
	for _, f := range rep.Findings {
		if f.Kind == "flaky-failure" {
			t.Errorf("finding %s %s: %s, want no flaky failure", f.Kind, f.Test, f.Message)
		}
	}
	if fine := testResult(rep, "TestFine"); fine.Runs != cfg.RunsPerTest || fine.FailsAfter != nil {
		t.Errorf("TestFine %+v, want all %d runs", fine, cfg.RunsPerTest)
	}
}

// The rule's edges: after a pass and a failure the next runs are unsteered (a schedule the
// strategy queued waits) until the verdict; a pass that starts after a failure ended makes
// the test flaky again, and so does a pass of an unsteered run.
func TestLeftStateRule(t *testing.T) {
	at := time.Unix(1000, 0)
	newTest := func() (*campaign, *testState) {
		ts := &testState{bin: &build.TestBinary{Package: "p"}, name: "TestX", statuses: map[string]int{}, strategy: recordStrategy{},
			first: at, queue: []*RunRequest{{Strategy: "flow", Key: "a"}, {Strategy: "flow", Key: "b"}}}
		return &campaign{cfg: Config{Parallel: 1}, tests: []*testState{ts}}, ts
	}
	// a run of ts started at second start, ended at second end
	finished := func(ts *testState, status run.Status, req *RunRequest, start, end int) {
		finishedRun(ts, status, req, nil, at, start, end)
	}
	c, ts := newTest()
	finished(ts, run.StatusPass, nil, 0, 1)
	if j, ok := c.nextJob(at); !ok || j.request == nil {
		t.Fatalf("after a pass: job %+v, want the queued schedule", j)
	}
	ts.inflight--
	finished(ts, run.StatusFail, &RunRequest{Strategy: "flow"}, 1, 2)
	if j, ok := c.nextJob(at); !ok || j.request != nil || len(ts.queue) != 1 {
		t.Fatalf("after a pass and a failure: job %+v, queue %d, want an unsteered run, the schedule kept", j, len(ts.queue))
	}
	ts.inflight--
	for i := 3; ts.runs < stateFailures+1; i++ {
		if !c.canStart(ts, at) {
			t.Fatalf("stopped after %d runs", ts.runs)
		}
		if j, _ := c.nextJob(at); j.request != nil {
			t.Fatalf("after %d failures: a steered run", ts.failRuns)
		}
		ts.inflight--
		finished(ts, run.StatusFail, nil, i, i+1)
	}
	if !ts.leftState() || c.canStart(ts, at) || ts.failsAfter() == nil {
		t.Fatalf("1 pass, %d failures, %d unsteered: leftState %v, want it and no more runs", ts.failRuns, ts.order.unsteeredFailed, ts.leftState())
	}
	if c.worthReporting(Finding{Finding: analysis.Finding{Kind: "flaky-failure", Package: "p", Test: "TestX"}}) {
		t.Error("its flaky-failure is reported")
	}
	// An overlapping run that started before the first failure ended and passed: the same.
	finished(ts, run.StatusPass, nil, 1, 30)
	if !ts.leftState() {
		t.Error("a pass that started before the first failure ended broke the rule")
	}
	// A pass that started after a failure had ended: flaky.
	finished(ts, run.StatusPass, nil, 31, 32)
	if ts.leftState() || !c.worthReporting(Finding{Finding: analysis.Finding{Kind: "flaky-failure", Package: "p", Test: "TestX"}}) {
		t.Error("a pass after the failures: still called state left behind")
	}
	// Steered failures only after the pass, the unsteered run passes: flaky, fuzzed on.
	c, ts = newTest()
	finished(ts, run.StatusPass, nil, 0, 1)
	for i := 1; i < brokenAfter+2; i++ {
		finished(ts, run.StatusFail, &RunRequest{Strategy: "flow"}, i, i+1)
	}
	if ts.leftState() || !ts.wantsUnsteered() {
		t.Errorf("steered failures only: leftState %v, wantsUnsteered %v, want false, true", ts.leftState(), ts.wantsUnsteered())
	}
	finished(ts, run.StatusFail, nil, 20, 21)
	finished(ts, run.StatusFail, nil, 21, 22)
	if ts.leftState() {
		t.Errorf("%d failures, only %d unsteered: called state left behind", ts.failRuns, ts.order.unsteeredFailed)
	}
	finished(ts, run.StatusPass, nil, 22, 23)
	if ts.leftState() || ts.wantsUnsteered() || !c.canStart(ts, at) {
		t.Error("an unsteered pass after the failures: not fuzzed on")
	}
}

// The next campaign, its runs all failing on the state the first one left, says what the
// first one saw, from the saved state.
func TestStateLeftBehindNextCampaign(t *testing.T) {
	fakeAnalysis(t)
	cfg := fakeConfig(t)
	t.Setenv("TMPDIR", t.TempDir())
	cfg.Dir, cfg.Strategy, cfg.RunsPerTest, cfg.Run = "testdata/leftstate", "record", 24, "^TestLock$"
	for campaign := 1; campaign <= 2; campaign++ {
		rep, err := Fuzz(context.Background(), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"leftstate.TestLock fails in every run after the first"}
		if campaign == 2 { // (8 runs, or 9 when -p 2 had one more under way)
			want = []string{"leftstate.TestLock fails in every run (all ", " runs failed, one unsteered; not fuzzed further), and an earlier campaign saw it pass its first run and fail in every later one: the test depends on state an earlier run left behind"}
		}
		if len(rep.Errors) != 1 || !strings.HasPrefix(rep.Errors[0], want[0]) || !strings.Contains(rep.Errors[0], want[len(want)-1]) {
			t.Errorf("campaign %d: errors %q, want one saying %q", campaign, rep.Errors, want)
		}
	}
}

// finishedRun notes a run of ts, under req (nil: unsteered), that recorded tr (nil: none
// read), started at second start after at and ended at second end.
func finishedRun(ts *testState, status run.Status, req *RunRequest, tr *trace.Trace, at time.Time, start, end int) {
	ts.runs++
	ts.statuses[string(status)]++
	ar := &AnalyzedRun{Run: &run.Run{Status: status}, Request: req, Index: ts.runs, Recorded: tr}
	if status == run.StatusFail {
		ar.Findings = []Finding{{Finding: analysis.Finding{Kind: "flaky-failure", Message: "TestX failed: exists", Positions: []analysis.Position{{File: "/m/x_test.go", Line: 3}}}}}
	}
	ts.noteFailure(ar)
	ts.noteOrder(jobResult{job: job{began: at.Add(time.Duration(start) * time.Second)}, run: ar, exited: at.Add(time.Duration(end) * time.Second)})
}

// The replay of the first pass: a failure after it queues two replays of its schedule,
// run before anything else; both failing, five unsteered failures give the verdict (not
// 14); a replay that passes makes the test flaky, however many unsteered runs fail.
func TestLeftStateReplayRule(t *testing.T) {
	at := time.Unix(1000, 0)
	newTest := func() (*campaign, *testState) {
		ts := &testState{bin: &build.TestBinary{Package: "p"}, name: "TestX", statuses: map[string]int{}, strategy: recordStrategy{},
			first: at, queue: []*RunRequest{{Strategy: "flow", Key: "a"}}}
		return &campaign{cfg: Config{Parallel: 1}, tests: []*testState{ts}}, ts
	}
	passed := &trace.Trace{Meta: map[string]string{}}
	takeReplay := func(c *campaign, ts *testState) *RunRequest {
		t.Helper()
		j, ok := c.nextJob(at)
		if !ok || j.request == nil || j.request.Strategy != replayStrategy || j.request.Parent != 1 {
			t.Fatalf("after a pass and a failure: job %+v, want a replay of run 1", j)
		}
		ts.inflight--
		return j.request
	}
	// State left behind: the replays fail like the rest.
	c, ts := newTest()
	finishedRun(ts, run.StatusPass, nil, passed, at, 0, 1)
	finishedRun(ts, run.StatusFail, nil, nil, at, 1, 2)
	for k := range replayRuns {
		finishedRun(ts, run.StatusFail, takeReplay(c, ts), nil, at, 2+k, 3+k)
	}
	for i := 10; ts.order.unsteeredFailed < replayedUnsteered; i++ {
		if ts.leftState() || !c.canStart(ts, at) {
			t.Fatalf("%d unsteered failures: leftState %v, want more runs first", ts.order.unsteeredFailed, ts.leftState())
		}
		if j, _ := c.nextJob(at); j.request != nil {
			t.Fatalf("after the replays: a steered run %+v", j.request)
		}
		ts.inflight--
		finishedRun(ts, run.StatusFail, nil, nil, at, i, i+1)
	}
	if !ts.leftState() || c.canStart(ts, at) {
		t.Fatalf("both replays and %d unsteered runs failed: leftState %v, want the verdict", ts.order.unsteeredFailed, ts.leftState())
	}
	if f := ts.failsAfter(); f == nil || f.Replayed != replayRuns || f.Runs != replayRuns+replayedUnsteered {
		t.Errorf("failsAfter %+v, want %d failures, %d of them replays", f, replayRuns+replayedUnsteered, replayRuns)
	}
	// A schedule's failure: the replay of the pass passes; the test is flaky, fuzzed on,
	// and stays so whatever fails next.
	c, ts = newTest()
	finishedRun(ts, run.StatusPass, nil, passed, at, 0, 1)
	finishedRun(ts, run.StatusFail, nil, nil, at, 1, 2)
	finishedRun(ts, run.StatusPass, takeReplay(c, ts), nil, at, 2, 3)
	for i := 3; i < 3+stateFailures+2; i++ {
		finishedRun(ts, run.StatusFail, nil, nil, at, i, i+1)
	}
	if ts.leftState() || ts.wantsUnsteered() || ts.order.replayPassed != 1 || !c.worthReporting(Finding{Finding: analysis.Finding{Kind: "flaky-failure", Package: "p", Test: "TestX"}}) {
		t.Errorf("the replay of the pass passed: leftState %v, wantsUnsteered %v, want a flaky test", ts.leftState(), ts.wantsUnsteered())
	}
	// A pass whose trace was not read: no replay, the thresholds without one.
	_, ts = newTest()
	finishedRun(ts, run.StatusPass, nil, nil, at, 0, 1)
	finishedRun(ts, run.StatusFail, nil, nil, at, 1, 2)
	if len(ts.confirm) != 0 {
		t.Errorf("a replay queued without the pass's trace: %+v", ts.confirm)
	}
	// The trace of a pass no failure followed is not kept past the test's end.
	c, ts = newTest()
	finishedRun(ts, run.StatusPass, nil, passed, at, 0, 1)
	if c.ended(ts); ts.order.passTrace != nil {
		t.Error("the first pass's trace kept after the test ended")
	}
}
