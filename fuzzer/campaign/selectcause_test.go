package campaign

import (
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace/tracetest"
	"github.com/goweave/goweave/fuzzer/run"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// The recipe of a flaky failure found by a steered run whose schedule left its select free
// pins the case the run took among ready ones; every actual finding's replays the run whole
// (mutate.PinRun); a predicted or confirmed one's keeps the run's schedule (its rewrite).
func TestPinnedChoicesInRecipe(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	slot := m.MakeChan(1, "pool.go:9")
	m.Send(slot, "pool.go:11")
	done := m.MakeChan(0, "ctx.go:1")
	m.Close(done, "pool_test.go:11")
	sel := m.Select("pool.go:17", 0, tracetest.RecvCase(slot), tracetest.RecvCase(done))
	sel.Event().Cases[0].Ready, sel.Event().Cases[1].Ready = true, true
	sched, err := schedule.Marshal(&schedule.Schedule{Delays: []schedule.Delay{{
		Op:     schedule.OpID{G: "1", Kind: 4, Pos: schedule.Pos{File: tracetest.Dir + "pool.go", Line: 11}, N: 1},
		Window: 20e6, Until: schedule.OpID{G: "1", Kind: 6, Pos: schedule.Pos{File: tracetest.Dir + "pool_test.go", Line: 11}, N: 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	ar := &AnalyzedRun{Run: &run.Run{Status: run.StatusFail}, Recorded: b.Trace()}
	flaky := &Finding{Finding: analysis.Finding{Kind: "flaky-failure", Confidence: analysis.Actual}}
	got := string(pinnedChoices(sched, flaky, ar))
	if !strings.Contains(got, "\nselect ") || !strings.Contains(got, ":17 ") || !strings.Contains(got, "\ndelay ") {
		t.Errorf("flaky failure's recipe:\n%s\nwant the delay and a preference for the select at pool.go:17", got)
	}
	other := &Finding{Finding: analysis.Finding{Kind: "deadlock", Confidence: analysis.Actual}}
	if got := string(pinnedChoices(sched, other, ar)); !strings.Contains(got, "\norder ") || !strings.Contains(got, " 7 1:17 1\n") {
		t.Errorf("deadlock's recipe:\n%s\nwant the run replayed whole, its select among the ordered ops", got)
	}
	for _, c := range []analysis.Confidence{analysis.Predicted, analysis.Confirmed} {
		f := &Finding{Finding: analysis.Finding{Kind: "send-on-closed", Confidence: c}}
		if got := pinnedChoices(sched, f, ar); string(got) != string(sched) {
			t.Errorf("%s finding's recipe changed:\n%s", c, got)
		}
	}
}
