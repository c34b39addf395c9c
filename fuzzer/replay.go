package fuzzer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace"
)

// ReplayResult is the outcome of replaying a finding.
type ReplayResult struct {
	// Reproduced: the bug happened in a replayed run (an actual finding of the same kind on
	// the same line).
	Reproduced bool
	// Finding is the finding as observed in the replay, with Confidence "confirmed"; nil when
	// the replay did not reproduce it.
	Finding *Finding
	// Run is the replayed run that reproduced the bug, or the last one tried.
	Run *Run
	// Runs is the number of runs made.
	Runs int
	// Blocked lists the goroutines left blocked at the end of Run, one line each
	// ("goroutine 7 [chan send] at x_test.go:31").
	Blocked []string
}

// defaultReplayRuns is how many runs Replay tries when cfg sets no budget: a schedule
// replay is meant to reproduce at once; free reruns of a rare bug need a few tries.
const defaultReplayRuns = 20

// Replay runs the test that found f again until the bug happens: under f's schedule when
// it was found by a steered run (f.Replay), else freely. It stops at the first run in which
// the bug actually happens, or when cfg's budget (RunsPerTest, TimePerTest; default 20
// runs) is spent. cfg is the configuration of the campaign that found f; its Packages,
// Run, Strategy and Shard are replaced by f's package and test.
func Replay(ctx context.Context, cfg Config, f Finding) (*ReplayResult, error) {
	if f.Package == "" || f.Test == "" || len(f.Positions) == 0 {
		return nil, errors.New("replay: the finding names no package, test or position")
	}
	var recipe []byte
	if f.Replay != "" {
		var err error
		if recipe, err = os.ReadFile(f.Replay); err != nil {
			return nil, fmt.Errorf("replay: reading the schedule of the finding: %v", err)
		}
	}
	cfg.Packages = []string{f.Package}
	cfg.Run = "^" + regexp.QuoteMeta(f.Test) + "$"
	cfg.Strategy, cfg.Shard, cfg.Enough = "record", Shard{}, nil
	if cfg.RunsPerTest <= 0 && cfg.TimePerTest <= 0 {
		cfg.RunsPerTest = defaultReplayRuns
	}
	c, buildErr, err := newCampaign(ctx, cfg)
	if err != nil || buildErr != nil {
		return nil, errors.Join(buildErr, err)
	}
	defer os.RemoveAll(filepath.Join(c.dir, "bin"))
	if len(c.tests) != 1 {
		return nil, fmt.Errorf("replay: test %s not found in package %s", f.Test, f.Package)
	}
	t := c.tests[0]
	if recipe != nil {
		for range max(cfg.RunsPerTest, 1) {
			t.queue = append(t.queue, &RunRequest{Strategy: f.Strategy, Parent: f.Run, Key: "replay", Recipe: recipe})
		}
	}
	c.analyze = true
	res := &ReplayResult{}
	c.onRun = func(ar *AnalyzedRun) {
		if res.Reproduced {
			return // a run that was already under way when the bug showed
		}
		res.Runs++
		res.Run = ar.Run
		res.Blocked = blockedGoroutines(ar.Recorded, t.bin.Dir)
		for _, g := range ar.Findings {
			if sameBug(g, f) {
				g.Confidence = analysis.Confirmed
				res.Reproduced, res.Finding = true, &g
				t.enough = true
				return
			}
		}
	}
	c.keepTraces = true
	c.loop(ctx)
	return res, ctx.Err()
}

// sameBug reports whether g shows f actually happening: the same kind on the same line,
// observed rather than predicted.
func sameBug(g, f Finding) bool {
	gf, gl, _ := primary(g)
	ff, fl, _ := primary(f)
	return g.Kind == f.Kind && gf == ff && gl == fl && g.Confidence == analysis.Actual
}

// blockedGoroutines describes the goroutines still blocked when the trace was written,
// with positions relative to dir.
func blockedGoroutines(tr *trace.Trace, dir string) []string {
	if tr == nil {
		return nil
	}
	var out []string
	for _, g := range tr.Goroutines {
		if g.Status != 4 { // _Gwaiting
			continue
		}
		line := fmt.Sprintf("goroutine %d [%s]", g.ID, g.WaitReason)
		if g.LastEvent >= 0 && g.LastEvent < len(tr.Events) {
			if e := &tr.Events[g.LastEvent]; !e.Completed() {
				p := tr.Position(e.Pos)
				if rel, err := filepath.Rel(dir, p.File); err == nil && filepath.IsLocal(rel) {
					p.File = rel
				}
				line += " at " + p.String()
			}
		}
		out = append(out, line)
	}
	return out
}
