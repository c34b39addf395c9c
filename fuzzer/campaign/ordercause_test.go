package campaign

import (
	"testing"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/build"
	"github.com/goweave/goweave/fuzzer/run"
)

// A run's failing subtests, innermost, tell apart failing runs that may fail for different
// reasons.
func TestFailedSubtests(t *testing.T) {
	out := `=== RUN   TestX
=== RUN   TestX/simple
--- FAIL: TestX (1.15s)
    --- PASS: TestX/simple (0.15s)
    --- FAIL: TestX/one_time/limit (1.00s)
        x_test.go:76: timed out
    --- FAIL: TestX/one_time (1.00s)
FAIL`
	if got := failedSubtests(out); got != "TestX/one_time/limit" {
		t.Errorf("failedSubtests = %q, want TestX/one_time/limit", got)
	}
	if got := failedSubtests("--- FAIL: TestX (0.00s)\n"); got != "" {
		t.Errorf("no subtest: %q", got)
	}
}

// A failing run that failed by the clock (its flaky failure carries timing evidence: the
// schedule held a goroutine past the test's sleep) is not among the failing runs whose
// orders the cause is told from; a passing run, and a failing run without the evidence,
// are.
func TestOrderRunsLeaveOutTimedOutFailures(t *testing.T) {
	ts := &testState{bin: &build.TestBinary{Package: "p"}, name: "TestX", statuses: map[string]int{}}
	tr := &trace.Trace{Meta: map[string]string{}}
	failure := func(tm *analysis.Timing) []Finding {
		return []Finding{{Finding: analysis.Finding{Kind: "flaky-failure", Timing: tm}}}
	}
	o := &ts.choices.order
	o.note(ts, &AnalyzedRun{Run: &run.Run{Status: run.StatusFail}, Index: 1, Recorded: tr, Findings: failure(nil)})
	o.note(ts, &AnalyzedRun{Run: &run.Run{Status: run.StatusFail}, Index: 2, Recorded: tr, Findings: failure(&analysis.Timing{Wait: "time.Sleep(150ms)"})})
	o.note(ts, &AnalyzedRun{Run: &run.Run{Status: run.StatusPass}, Index: 3, Recorded: tr})
	if _, ok := o.fail[1]; !ok || len(o.fail) != 1 || len(o.pass) != 1 {
		t.Errorf("failing runs kept %v, passing %v: want run 1 failing (run 2 timed out) and run 3 passing", o.fail, o.pass)
	}
}
