package campaign

import (
	"errors"
	"testing"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer/run"
)

func TestRunLogString(t *testing.T) {
	id := TestID{Package: "example.com/q", Test: "TestPoll"}
	leak := Finding{Finding: analysis.Finding{Kind: "leak-mutex", Positions: []analysis.Position{{File: "/src/q/q_test.go", Line: 19}}}}
	for _, c := range []struct {
		log  RunLog
		want string
	}{
		{RunLog{Test: id, Run: 1, Strategy: "record", Status: run.StatusPass, NewSignature: true},
			"example.com/q.TestPoll run 1 record: pass, new signature"},
		{RunLog{Test: id, Run: 4, Strategy: "flow", Note: "delay 1.1 Lock q_test.go:19#1 until 1 Lock q_test.go:25#1", Status: run.StatusPass, Steered: true, New: []Finding{leak, leak}},
			"example.com/q.TestPoll run 4 flow (delay 1.1 Lock q_test.go:19#1 until 1 Lock q_test.go:25#1): pass, steered; new leak-mutex at q_test.go:19, leak-mutex at q_test.go:19"},
		{RunLog{Test: id, Run: 5, Strategy: "record", Status: run.StatusFail, Clock: clockNote(&AnalyzedRun{Findings: []Finding{
			{Finding: analysis.Finding{Kind: "flaky-failure", Confidence: analysis.Actual}},
			{Finding: analysis.Finding{Kind: "flaky-failure", Confidence: analysis.Predicted, Timing: &analysis.Timing{Wait: "time.Sleep(1ms)"}}},
		}})},
			"example.com/q.TestPoll run 5 record: fail; no timing evidence"},
		{RunLog{Test: id, Run: 6, Strategy: "record", Status: run.StatusFail, Clock: clockNote(&AnalyzedRun{Findings: []Finding{
			{Finding: analysis.Finding{Kind: "leak-mutex", Confidence: analysis.Actual}},
			{Finding: analysis.Finding{Kind: "flaky-failure", Confidence: analysis.Actual, Timing: &analysis.Timing{Wait: "time.Sleep(20ms)", Late: true, NeverRan: true,
				At: analysis.Position{File: "/src/q/q_test.go", Line: 12}, Delayed: analysis.Goroutine{ID: 9, Spawn: "q.go:16"}}}},
		}})},
			"example.com/q.TestPoll run 6 record: fail; timing: the test waits with time.Sleep(20ms) at q_test.go:12; goroutine 9 (started at q.go:16), started before it, had not run at all when the wait expired (nor when the run ended)"},
		{RunLog{Test: id, Run: 2, Strategy: "gfuzz", Err: errors.New("no trace")},
			"example.com/q.TestPoll run 2 gfuzz: error: no trace"},
	} {
		if got := c.log.String(); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}
