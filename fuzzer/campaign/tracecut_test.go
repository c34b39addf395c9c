//go:build linux

package campaign

import (
	"context"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace"
)

// A run whose recorder's buffer filled (trace META "dropped") is analyzed on what it
// recorded, and the report says it was cut: the run log, the test's traceCut count and a
// warning that names the test and the variable to raise. Before, such runs counted as
// analyzed with no word of the lost operations.
func TestTraceCutByTheRecorderIsReported(t *testing.T) {
	fakeAnalysis(t)
	t.Setenv("FAKERECORDER_DROPPED", "7805712")
	cfg := fakeConfig(t)
	cfg.Run, cfg.Strategy, cfg.RunsPerTest = "^TestAlways$", "record", 2
	var logs []RunLog
	cfg.Log = func(l RunLog) { logs = append(logs, l) }
	rep, err := Fuzz(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := rep.Tests[0]
	if tr.Runs != 2 || tr.Analyzed != 2 || tr.TraceCut != 2 || len(rep.Findings) != 1 {
		t.Fatalf("%+v, findings %+v: want 2 runs, both analyzed on what they recorded and counted as cut, and the finding", tr, rep.Findings)
	}
	var warned []string
	for _, w := range rep.Warnings {
		if strings.Contains(w, "fakerecorder.TestAlways: 2 runs filled the recorder's buffer") {
			warned = append(warned, w)
		}
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "GOWEAVE_EVENTS") || !strings.Contains(warned[0], "7805712") {
		t.Errorf("warnings %q: want one that names the test, the loss and GOWEAVE_EVENTS", rep.Warnings)
	}
	for _, l := range logs {
		if !strings.Contains(l.String(), "trace cut: the recorder's buffer was full after 2 events, 7805712 more lost") &&
			!strings.Contains(l.String(), "trace cut: the recorder's buffer was full after 4 events, 7805712 more lost") {
			t.Errorf("run log %q: want the cut", l.String())
		}
	}
}

// A run that lost nothing is not counted as cut.
func TestWholeTraceIsNotCut(t *testing.T) {
	fakeAnalysis(t)
	cfg := fakeConfig(t)
	cfg.Run, cfg.Strategy, cfg.RunsPerTest = "^TestAlways$", "record", 1
	rep, err := Fuzz(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Tests[0].TraceCut != 0 {
		t.Errorf("%+v: no run lost events", rep.Tests[0])
	}
	for _, w := range rep.Warnings {
		if strings.Contains(w, "recorder's buffer") {
			t.Errorf("warning %q for a whole trace", w)
		}
	}
}

// A run too large to analyze whole within the analysis memory budget is analyzed on its
// first events (a finding of the run is still found) and the report says so: the run log,
// the test's analysisCut count and a warning. Before, it had no analysis and its test's
// bugs were unknown.
func TestRunPastTheMemoryBudgetIsAnalyzedOnItsPrefix(t *testing.T) {
	fakeAnalysis(t)
	old := minPrefixEvents
	minPrefixEvents = 1
	t.Cleanup(func() { minPrefixEvents = old })
	t.Setenv("FAKERECORDER_CHANNELS", "20000") // 40000 events: about 4 MB decoded
	cfg := fakeConfig(t)
	cfg.Run, cfg.Strategy, cfg.RunsPerTest = "^TestAlways$", "record", 2
	cfg.AnalysisMemory = 1 << 20 // the first 2500 or so events fit
	var logs []RunLog
	cfg.Log = func(l RunLog) { logs = append(logs, l) }
	rep, err := Fuzz(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := rep.Tests[0]
	if tr.Runs != 2 || tr.Analyzed != 2 || tr.AnalysisCut != 2 || tr.TraceCut != 0 || len(rep.Findings) != 1 {
		t.Fatalf("%+v, findings %+v, warnings %q: want 2 runs, both analyzed on their first events, and the finding", tr, rep.Findings, rep.Warnings)
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "fakerecorder.TestAlways: 2 runs were too large to analyze whole within the analysis memory budget (1 MB)") ||
		!strings.Contains(rep.Warnings[0], "-analysis-memory") {
		t.Errorf("warnings %q: want one that names the test, the budget and the flag", rep.Warnings)
	}
	for _, l := range logs {
		if !strings.Contains(l.String(), "analysis cut: the memory budget held its first ") || strings.Contains(l.String(), "recorder's buffer") {
			t.Errorf("run log %q: want the analysis cut, not the recorder's", l.String())
		}
	}
}

// A run whose analysis passes the memory budget midway (the trace fit, the analysis's own
// state did not) is analyzed again on a prefix; when that fits, the run counts as analyzed
// on its first events (analysisCut, the warning), with its finding. Before, it was not
// analyzed at all.
func TestAnalysisPastTheBudgetMidwayRetriesAPrefix(t *testing.T) {
	old, oldMin := analyzeTrace, minPrefixEvents
	minPrefixEvents = 1
	analyzeTrace = func(tr *trace.Trace, o analysis.Options) (*analysis.Result, error) {
		if len(tr.Events) > 10000 { // stands in for clocks that grow past the budget
			return nil, &analysis.BudgetError{Run: o.Run, Budget: o.Budget(), Held: o.Budget(), Events: len(tr.Events)}
		}
		return &analysis.Result{Trace: tr, Findings: []analysis.Finding{{Kind: "fake", Fingerprint: "f", Message: "found",
			Positions: []analysis.Position{{Role: "here", File: "/x/f.go", Line: 1}}}}}, nil
	}
	t.Cleanup(func() { analyzeTrace, minPrefixEvents = old, oldMin })
	t.Setenv("FAKERECORDER_CHANNELS", "10000") // 20000 events, well within the budget decoded
	cfg := fakeConfig(t)
	cfg.Run, cfg.Strategy, cfg.RunsPerTest = "^TestAlways$", "record", 1
	cfg.AnalysisMemory = 64 << 20
	rep, err := Fuzz(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := rep.Tests[0]
	if tr.Runs != 1 || tr.Analyzed != 1 || tr.AnalysisCut != 1 || len(rep.Findings) != 1 {
		t.Fatalf("%+v, findings %+v, warnings %q: want the run analyzed on a prefix, with its finding", tr, rep.Findings, rep.Warnings)
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "too large to analyze whole") {
		t.Errorf("warnings %q: want the prefix's, not the budget's", rep.Warnings)
	}
}
