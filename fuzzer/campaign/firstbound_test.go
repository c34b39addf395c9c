package campaign

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace"
)

// A first run whose analysis would take far past the test's share (here: until it is
// stopped, or 20 s) is stopped at its bound: the test has no analyzed run and a warning says
// the first run's analysis was stopped, never a silent "0 bugs"; what the analysis would
// have found late is not waited for. Before, the campaign waited for it however long.
func TestFirstRunAnalysisIsBounded(t *testing.T) {
	old, oldFloor := analyzeTrace, firstAnalysisFloor
	t.Cleanup(func() { analyzeTrace, firstAnalysisFloor = old, oldFloor })
	firstAnalysisFloor = 0
	analyzeTrace = func(tr *trace.Trace, o analysis.Options) (*analysis.Result, error) {
		select {
		case <-o.Stop:
			return nil, analysis.ErrStopped
		case <-time.After(20 * time.Second):
		}
		return &analysis.Result{Trace: tr, Findings: []analysis.Finding{{Kind: "fake", Fingerprint: "late",
			Positions: []analysis.Position{{Role: "here", File: "/x/late.go", Line: 1}}}}}, nil
	}
	cfg := fakeConfig(t)
	cfg.Run, cfg.Strategy, cfg.Parallel = "^TestNothing$", "record", 1
	cfg.TimePerTest = 500 * time.Millisecond
	rep, err := Fuzz(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tr := rep.Tests[0]; tr.Runs != 1 || tr.Analyzed != 0 {
		t.Errorf("%+v: want one run, not analyzed", tr)
	}
	if hasFinding(rep, "late") {
		t.Error("the campaign waited for the first run's analysis past its bound")
	}
	if !slices.ContainsFunc(rep.Warnings, func(w string) bool {
		return strings.Contains(w, "fakerecorder.TestNothing: none of its 1 run was analyzed") &&
			strings.Contains(w, "the analysis of the test's first run was stopped at its bound") &&
			strings.Contains(w, "its bugs are unknown, not none")
	}) {
		t.Errorf("warnings %q: none says the first run's analysis was stopped", rep.Warnings)
	}
}
