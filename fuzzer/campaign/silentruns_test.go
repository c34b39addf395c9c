package campaign

import (
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer/build"
	"github.com/goweave/goweave/fuzzer/run"
)

// Failing runs without a finding are counted and warned of, with how the first ended;
// passing runs, runs with a finding and runs stopped at the time limit are not.
func TestSilentRunsWarning(t *testing.T) {
	ts := &testState{name: "TestQ", bin: &build.TestBinary{Package: "example.com/q"}, runs: 5}
	c := &campaign{tests: []*testState{ts}}
	for _, ar := range []*AnalyzedRun{
		{Run: &run.Run{Status: run.StatusPass}},
		{Run: &run.Run{Status: run.StatusTimeout}},
		{Run: &run.Run{Status: run.StatusFail}, Findings: []Finding{{Finding: analysis.Finding{Kind: "flaky-failure"}}}},
		{Run: &run.Run{Status: run.StatusCrash, ExitCode: 2, Output: "=== RUN   TestQ\nSIGQUIT: quit\nPC=0x408fee m=0 sigcode=0\n\ngoroutine 1 [running]:\n"}},
		{Run: &run.Run{Status: run.StatusPanic, ExitCode: 2, Panic: "boom"}},
	} {
		ts.silent.note(ar)
	}
	ws := c.silentWarnings()
	if len(ws) != 1 || !strings.HasPrefix(ws[0], `example.com/q.TestQ: 2 of its 5 runs failed with nothing goweave could report of them (the first: crash, exit status 2: "SIGQUIT: quit")`) {
		t.Errorf("warnings %q", ws)
	}
	if ws := (&campaign{tests: []*testState{{name: "TestP", bin: ts.bin}}}).silentWarnings(); len(ws) != 0 {
		t.Errorf("a test without silent runs: %q", ws)
	}
}
