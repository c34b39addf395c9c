//go:build linux

package campaign

import (
	"context"
	"strings"
	"testing"
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
