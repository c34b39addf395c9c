package campaign

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/build"
	"github.com/goweave/goweave/fuzzer/run"
)

// An Example whose output differs is a flaky-failure at its declaration, its Output
// comment related, naming the first line that differed.
func TestOutcomeExampleOutput(t *testing.T) {
	dir := t.TempDir()
	src := "package w\n\nimport \"fmt\"\n\nfunc Example_order() {\n\tfmt.Println(\"a\")\n\tfmt.Println(\"b\")\n\t// Output:\n\t// a\n\t// b\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "w_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := &build.TestBinary{Package: "example.com/w", Dir: dir, Module: dir}
	out := "=== RUN   Example_order\n--- FAIL: Example_order (0.00s)\ngot:\nb\na\nwant:\na\nb\nFAIL\n"
	fs := outcomeFindings(bin, "Example_order", &run.Run{Status: run.StatusFail, Output: out})
	if len(fs) != 1 || fs[0].Kind != "flaky-failure" || len(fs[0].Positions) != 2 || fs[0].Positions[0].Line != 5 || fs[0].Positions[1].Line != 8 {
		t.Fatalf("findings %+v, want a flaky-failure at the Example (line 5), its Output comment (line 8) related", fs)
	}
	if want := `line 1 is "b", want "a"`; !strings.Contains(fs[0].Message, want) {
		t.Errorf("message %q, want it to name %s", fs[0].Message, want)
	}
	// Another run's output, the same place: one finding.
	other := strings.Replace(out, "got:\nb\na\n", "got:\na\n", 1)
	fs2 := outcomeFindings(bin, "Example_order", &run.Run{Status: run.StatusFail, Output: other})
	if len(fs2) != 1 || fs2[0].Fingerprint != fs[0].Fingerprint || !strings.Contains(fs2[0].Message, `1 lines, want 2 (line 2, "b", is missing)`) {
		t.Errorf("second output: %+v, want the same fingerprint and the missing line", fs2)
	}
}

// A test whose every run fails, one of them unsteered, ends after brokenAfter runs and is
// named with its first failure; one that passed once is flaky, not broken.
func TestFailingTestEndsEarly(t *testing.T) {
	bin := &build.TestBinary{Package: "p"}
	ts := &testState{bin: bin, name: "TestX", statuses: map[string]int{}, strategy: recordStrategy{}}
	c := &campaign{tests: []*testState{ts}}
	fail := func(req *RunRequest) {
		ts.runs++
		ts.statuses["fail"]++
		ts.noteFailure(&AnalyzedRun{Run: &run.Run{Status: run.StatusFail}, Request: req, Findings: []Finding{{Finding: analysis.Finding{
			Kind: "flaky-failure", Message: "TestX failed: sum = 5, want 6", Positions: []analysis.Position{{File: "/m/x_test.go", Line: 9}}}}}})
	}
	fail(nil)
	if !c.canStart(ts, ts.first) {
		t.Fatal("stopped after one failing run")
	}
	for ts.runs < brokenAfter-1 {
		fail(&RunRequest{Strategy: "flow"})
	}
	if !c.canStart(ts, ts.first) {
		t.Fatalf("stopped after %d failing runs: a flaky test under load fails that often", ts.runs)
	}
	fail(&RunRequest{Strategy: "flow"})
	if c.canStart(ts, ts.first) {
		t.Errorf("a test that failed in %d of %d runs, one unsteered, may start more runs", ts.runs, ts.runs)
	}
	errs := c.failingErrors()
	if len(errs) != 1 || !strings.Contains(errs[0], "p.TestX fails in every run under goweave (recording on; all 8 runs failed, one unsteered; not fuzzed further; plain go test not run)") || !strings.Contains(errs[0], "x_test.go:9: TestX failed: sum = 5, want 6") {
		t.Errorf("errors %q", errs)
	}
	if f := ts.failing(); f == nil || f.Runs != brokenAfter || !f.Unsteered || f.Position.Line != 9 {
		t.Errorf("failing %+v", f)
	}
	// A run failed by the race detector is the race's finding, not a broken test.
	raced := &testState{bin: bin, name: "TestR", statuses: map[string]int{}}
	for range 3 {
		raced.runs++
		raced.noteFailure(&AnalyzedRun{Run: &run.Run{Status: run.StatusFail, Races: [][]string{{"WARNING: DATA RACE"}}}})
	}
	if raced.broken() || raced.failing() != nil {
		t.Error("a test failed by the race detector in every run is called broken")
	}
	// Failing only under goweave's schedules: an error, but not "fails under plain go test too", and
	// the campaign goes on.
	steered := &testState{bin: bin, name: "TestS", statuses: map[string]int{}, strategy: recordStrategy{}}
	c2 := &campaign{tests: []*testState{steered}}
	for range 4 {
		steered.runs++
		steered.noteFailure(&AnalyzedRun{Run: &run.Run{Status: run.StatusFail}, Request: &RunRequest{Strategy: "flow"}})
	}
	if errs := c2.failingErrors(); !c2.canStart(steered, steered.first) || len(errs) != 1 || !strings.Contains(errs[0], "p.TestS failed in every run (all 4 runs failed") || strings.Contains(errs[0], "fails under plain go test too") {
		t.Errorf("steered failures only: errors %q", errs)
	}
	// A panic a detector explains is that finding; a leak explains nothing.
	explained := &testState{bin: bin, name: "TestC", statuses: map[string]int{}}
	for _, kind := range []string{"close-of-closed", "leak-chan"} {
		explained.runs++
		explained.noteFailure(&AnalyzedRun{Run: &run.Run{Status: run.StatusPanic, Panic: "close of closed channel"},
			Findings: []Finding{{Finding: analysis.Finding{Kind: kind, Confidence: analysis.Actual}}}})
	}
	if explained.failRuns != 1 {
		t.Errorf("%d failing runs, want 1: the panic explained by close-of-closed is not a broken test's, the one with a leak only is", explained.failRuns)
	}
	// A pass makes it flaky: no error, the flaky-failure reported (worthReporting).
	ts.runs++
	ts.statuses["pass"]++
	ts.noteFailure(&AnalyzedRun{Run: &run.Run{Status: run.StatusPass}})
	if ts.broken() || len(c.failingErrors()) != 0 {
		t.Error("a test that passed once is called broken")
	}
}

// A prediction whose confirmation run passed is refuted: a hint, not gating; another
// prediction of the same bug that nothing refuted keeps it a warning.
func TestRefutedPredictionIsAHint(t *testing.T) {
	bin := &build.TestBinary{Package: "p"}
	ts := &testState{bin: bin, name: "TestX", statuses: map[string]int{"pass": 2}, runs: 2, seen: map[string]*seenRuns{}}
	pred := &Finding{Finding: analysis.Finding{Kind: "mixed-deadlock", Confidence: analysis.Predicted, Package: "p", Test: "TestX", Fingerprint: "fp1",
		Positions: []analysis.Position{{Role: "blocked", File: "/m/x.go", Line: 10}}}, ID: "GW1"}
	c := &campaign{tests: []*testState{ts}, findings: map[string]*Finding{"fp1": pred}, confirming: map[string]string{"confirm:GW1:0": "fp1"},
		keepFiles: map[string]bool{}, recipes: map[string]*recipeParts{}}
	ar := &AnalyzedRun{Run: &run.Run{Status: run.StatusPass}, Request: &RunRequest{Strategy: "confirm", Key: "confirm:GW1:0"}, Recorded: &trace.Trace{Meta: map[string]string{}}}
	c.confirmRun(ts, ar)
	if pred.Refuted != "ran to completion: the test passed without the bug" {
		t.Fatalf("refuted %q", pred.Refuted)
	}
	got := c.grouped([]Finding{*pred})
	if len(got) != 1 || got[0].Severity != SeverityHint || Gating(&got[0]) {
		t.Fatalf("grouped %+v, want one hint", got)
	}
	if bugs, hints := gatingCount(got); bugs != 0 || hints != 1 {
		t.Errorf("counted %d bugs, %d hints", bugs, hints)
	}
	// A confirmation that ended in another failure refutes nothing.
	other := &Finding{Finding: pred.Finding, ID: "GW1"}
	other.Refuted = ""
	c.findings["fp1"] = other
	c.confirmRun(ts, &AnalyzedRun{Run: &run.Run{Status: run.StatusPanic, Panic: "boom"}, Request: ar.Request, Recorded: ar.Recorded})
	if other.Refuted != "" || !Gating(other) {
		t.Errorf("a confirmation that panicked refuted the prediction: %q", other.Refuted)
	}
}

// testify logs its report below an empty log line: the failure is named by its Error field
// and the recovered panic's value.
func TestFailureMessageOfTestify(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "q_test.go"), []byte("package q\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := &build.TestBinary{Package: "example.com/q", Dir: dir, Module: dir}
	out := "=== RUN   TestQ\n    q_test.go:1: \n        \tError Trace:\t" + dir + "/q_test.go:1\n" +
		"        \tError:      \tfunc (assert.PanicTestFunc)(0x7a1b20) should not panic\n" +
		"        \t            \tPanic value:\tsend on closed channel\n" +
		"        \t            \tPanic stack:\tgoroutine 24 [running]:\n" +
		"        \tTest:       \tTestQ\n--- FAIL: TestQ (0.00s)\nFAIL\n"
	fs := outcomeFindings(bin, "TestQ", &run.Run{Status: run.StatusFail, Output: out})
	if want := "TestQ failed: func (assert.PanicTestFunc)(0x7a1b20) should not panic: panic: send on closed channel"; len(fs) != 1 || fs[0].Message != want {
		t.Errorf("findings %+v, want one with message %q", fs, want)
	}
}

// The probe of a test that failed in every plain run (stage 2b) begins in one step of the
// campaign's loop (beginProbes), once: asking whether the test is broken, may start a run,
// waits, or how it failed, as the loop, a finished run, a rerun and the report do, any
// number of times, changes nothing, and the probe runs exactly probeRuns runs however often
// the step and the questions come.
func TestProbeBeginsOnceInItsStep(t *testing.T) {
	plainGoTest = func(ctx context.Context, dir, test string, race bool, vet string, timeout time.Duration) plainResult {
		return plainResult{outcome: plainFail, command: "go test -run X", failed: plainRuns}
	}
	defer func() { plainGoTest = runPlainGoTest }()
	ts := &testState{bin: &build.TestBinary{Package: "p", Dir: "/m"}, name: "TestX", statuses: map[string]int{}, strategy: recordStrategy{}}
	c := &campaign{cfg: Config{RunTimeout: time.Second, Parallel: 1}, tests: []*testState{ts},
		plain: &plainChecks{ctx: context.Background(), sem: make(chan struct{}, 1), ended: make(chan struct{}, 1)}}
	ask := func() {
		for range 3 {
			ts.broken()
			c.canStart(ts, ts.first)
			ts.plainPending()
			ts.failing()
			c.failingErrors()
		}
	}
	run1 := func() bool {
		j, ok := c.nextJob(ts.first)
		if !ok {
			return false
		}
		ask()
		ts.inflight--
		ts.runs++
		ts.statuses["fail"]++
		ts.noteFailure(&AnalyzedRun{Run: &run.Run{Status: run.StatusFail}, Request: j.request})
		c.checkPlain(ts, false)
		ask()
		if ts.runs == 1 {
			for range 40 {
				ts.queue = append(ts.queue, &RunRequest{Strategy: "flow"})
			}
		}
		return true
	}
	for ts.runs < brokenAfter {
		if !run1() {
			t.Fatalf("no run after %d", ts.runs)
		}
	}
	<-c.plainEnded()
	ask()
	if ts.plain.probeFrom != 0 || ts.probed() != 0 {
		t.Fatalf("the probe began when the campaign asked about the test (from run %d, %d probed), before the loop's step", ts.plain.probeFrom, ts.probed())
	}
	if c.canStart(ts, ts.first) || !ts.plainPending() {
		t.Fatalf("before its probe begins: canStart %v, plainPending %v; want it waiting, not ended by a finished run", c.canStart(ts, ts.first), ts.plainPending())
	}
	c.beginProbes()
	c.beginProbes()
	if ts.plain.probeFrom != brokenAfter {
		t.Fatalf("probe from run %d, want %d", ts.plain.probeFrom, brokenAfter)
	}
	for run1() {
		c.beginProbes()
		if ts.runs > brokenAfter+2*probeRuns {
			t.Fatalf("%d runs: the probe does not end", ts.runs)
		}
	}
	if ts.runs != brokenAfter+probeRuns || ts.probed() != probeRuns || !ts.broken() || !ts.done {
		t.Errorf("after the probe: %d runs, %d probed, broken %v, done %v; want %d runs, %d probed, broken and ended", ts.runs, ts.probed(), ts.broken(), ts.done, brokenAfter+probeRuns, probeRuns)
	}
	if errs := c.failingErrors(); len(errs) != 1 || !strings.Contains(errs[0], "16 runs of its queued schedules after that") {
		t.Errorf("errors %q", errs)
	}
}
