package campaign

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/run"
)

// A test whose analysis takes most of a run's cost (1 s, a run of a few ms) starts no run
// its share has no room to analyze: every run that finished is analyzed, none is cut short,
// and no warning says a run went unanalyzed. Before, runs kept starting to the end of the
// share and the last one's analysis was cut.
func TestNoRunStartsWithoutRoomForItsAnalysis(t *testing.T) {
	old := analyzeTrace
	analyzeTrace = func(tr *trace.Trace, o analysis.Options) (*analysis.Result, error) {
		select {
		case <-time.After(time.Second):
		case <-o.Stop:
			return nil, analysis.ErrStopped
		}
		return &analysis.Result{Trace: tr}, nil
	}
	t.Cleanup(func() { analyzeTrace = old })
	cfg := fakeConfig(t)
	cfg.Run, cfg.Strategy, cfg.Parallel = "^TestNothing$", "record", 1
	cfg.TimePerTest = 3 * time.Second
	rep, err := Fuzz(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := rep.Tests[0]
	if tr.Runs < 1 || tr.Analyzed != tr.Runs || tr.CutShort != 0 {
		t.Errorf("%+v: want every run analyzed, none cut short", tr)
	}
	if i := slices.IndexFunc(rep.Warnings, func(w string) bool { return strings.Contains(w, "not analyzed") }); i >= 0 {
		t.Errorf("warning %q: a run was started that could not be analyzed", rep.Warnings[i])
	}
}

func TestRunCostsNext(t *testing.T) {
	var r runCosts
	if r.next() != 0 {
		t.Fatal("no run yet: want 0")
	}
	for _, d := range []time.Duration{8, 1, 2, 3, 4} {
		r.note(d * time.Second)
	}
	// 8 s fell out of the latest four: the longest of 1..4 s, a quarter more.
	if got := r.next(); got != 5*time.Second {
		t.Errorf("next = %v, want 5s", got)
	}
}

// A confirmation left queued because the share has no room for its run is a warning, as
// one cut by the budget is: the prediction stays unconfirmed, never silently.
func TestConfirmationWithoutRoomIsAWarning(t *testing.T) {
	now := time.Now()
	c := &campaign{cfg: Config{TimePerTest: 10 * time.Second}}
	ts := &testState{first: now.Add(-8 * time.Second), budgetFrom: now.Add(-8 * time.Second), confirm: []*RunRequest{{Strategy: "confirm"}}}
	ts.costs.note(4 * time.Second)
	if !c.noRoomForRun(ts, now) {
		t.Fatal("2 s left for a run of 4 s (5 s with its margin): want no room")
	}
	w := c.noRoomWarning("p.TestX", ts)
	if !strings.Contains(w, "p.TestX: 1 confirmation run not started") || !strings.Contains(w, "about 5s each") {
		t.Errorf("warning %q: want the unstarted confirmation named", w)
	}
	ts.budgetFrom = now // room again
	if c.noRoomForRun(ts, now) || c.noRoomWarning("p.TestX", ts) != "" {
		t.Error("with room for the run: want it started and no warning")
	}
}

// The run the campaign lends a slow test after its first run (settleFirst) starts even when
// the finish of the first run left less than its estimate with margin: it borrows what it
// lacks, so that it is analyzed. The next one is judged by the room left.
func TestLentRunIsNotRefused(t *testing.T) {
	now := time.Now()
	l := &loans{limit: 20 * time.Second, left: 20 * time.Second}
	c := &campaign{cfg: Config{TimePerTest: time.Second}, loans: l}
	ts := &testState{first: now, budgetFrom: now, last: now.Add(4 * time.Second), started: 1}
	res := jobResult{job: job{test: ts, index: 1, shareEnd: now.Add(time.Second), loan: &firstRun{loans: l, granted: l.take(10 * time.Second)}},
		exited: now.Add(3 * time.Second), run: &AnalyzedRun{Run: &run.Run{Elapsed: 3 * time.Second}}, inspected: time.Second}
	c.settleFirst(ts, res)
	ts.costs.note(4 * time.Second)
	later := ts.last.Add(500 * time.Millisecond) // the first run's finish took that long
	if c.noRoomForRun(ts, later) {
		t.Fatalf("share end %v after the start, next run at %v: the lent run was refused", c.shareEnd(ts).Sub(now), later.Sub(now))
	}
	if end := c.shareEnd(ts); later.Add(ts.costs.next()).After(end) {
		t.Errorf("share end %v: the lent run starting at %v lacks room for its analysis", end.Sub(now), later.Sub(now))
	}
	ts.started++
	if !c.noRoomForRun(ts, later.Add(time.Second)) {
		t.Error("after the lent run started: want the room judged again (none left)")
	}
}
