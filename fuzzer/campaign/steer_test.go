package campaign

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/goweave/goweave/fuzzer/schedule"
)

// With a steering strategy, analyzed runs feed the strategies, whose schedules are queued
// and run: the run gets the schedule file through GOWEAVE_SCHEDULE and reports its origin.
func TestSteeredRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes an example")
	}
	cfg := Config{Dir: "../../examples/inventory", Strategy: "flow", RunsPerTest: 6, Parallel: 1, OutDir: t.TempDir(), RunTimeout: 10 * time.Second}
	c, buildErr, err := newCampaign(context.Background(), cfg, nil)
	if err != nil || buildErr != nil {
		t.Fatal(err, buildErr)
	}
	c.analyze = true
	c.keepTraces = true // and so the schedules, which the test reads
	var runs []*AnalyzedRun
	c.onRun = func(ar *AnalyzedRun) { runs = append(runs, ar) }
	c.loop(context.Background())

	if len(runs) != 6 {
		t.Fatalf("%d runs, want 6", len(runs))
	}
	if runs[0].Request != nil {
		t.Errorf("the first run was steered: %+v", runs[0].Request)
	}
	steered := 0
	for _, ar := range runs[1:] {
		if ar.Request == nil || ar.Request.Strategy == "confirm" {
			continue // free, or confirming a predicted finding (confirm.go)
		}
		steered++
		if ar.Request.Strategy != "flow" || ar.Request.Parent < 1 || ar.Request.Parent >= ar.Index || ar.Request.Key == "" {
			t.Errorf("run %d: request %+v", ar.Index, ar.Request)
		}
		data, err := os.ReadFile(ar.Schedule)
		if err != nil {
			t.Errorf("run %d: schedule file: %v", ar.Index, err)
			continue
		}
		s, err := schedule.Unmarshal(data)
		if err != nil || len(s.Delays) == 0 {
			t.Errorf("run %d: schedule %+v, %v: want flow delays", ar.Index, s, err)
		}
	}
	// Lock pairs of the two methods are concurrent in every run: flow always has a delay to try.
	if steered == 0 {
		t.Error("no run was steered")
	}
}

func TestUnknownStrategy(t *testing.T) {
	if _, err := newStrategy("bogus"); err == nil {
		t.Error("bogus strategy accepted")
	}
	for _, name := range Strategies {
		if _, err := newStrategy(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
