package replay

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/build"
	"github.com/goweave/goweave/fuzzer/campaign"
	"github.com/goweave/goweave/fuzzer/run"
)

// Result is the outcome of replaying a finding.
type Result struct {
	// Reproduced: the bug happened in a replayed run (an actual finding of the same kind on
	// the same line, or for a deadlock kind goroutines blocked at its positions).
	Reproduced bool
	// Finding is the finding as observed in the replay, with Confidence "confirmed"; nil when
	// the replay did not reproduce it.
	Finding *campaign.Finding
	// Verdict says what the last run showed: confirmed, or what happened instead (ran to
	// completion, diverged from the schedule, a different failure).
	Verdict campaign.Verdict
	// Run is the replayed run that reproduced the bug, or the last one tried.
	Run *run.Run
	// Runs is the number of runs made.
	Runs int
	// Blocked lists the goroutines left blocked at the end of Run, one line each
	// ("goroutine 7 [chan send] at x_test.go:31").
	Blocked []string
	// Command is a shell command line that runs Run again outside goweave (ReplayRecipe
	// only): the test binary under the same schedule.
	Command string
}

// defaultReplayRuns is how many runs Replay tries when cfg sets no budget: a schedule
// replay is meant to reproduce at once; free reruns of a rare bug need a few tries.
const defaultReplayRuns = 20

// Replay runs the test that found f again until the bug happens. A predicted finding is
// replayed under the rewrites that should make it happen (mutate.Confirm, built from the
// trace of the run that predicted it); any other finding under its recipe's schedule
// (recipeSchedule), else under the schedule of the run that found it (f.Replay), else freely. It stops at the first run in which the bug happens
// at f's positions, or when cfg's budget (RunsPerTest, TimePerTest; default 20 runs) is
// spent. cfg is the configuration of the campaign that found f; its Packages, Run,
// Strategy and Shard are replaced by f's package and test.
func Replay(ctx context.Context, cfg campaign.Config, f campaign.Finding) (*Result, error) {
	if f.Package == "" || f.Test == "" || len(f.Positions) == 0 {
		return nil, errors.New("replay: the finding names no package, test or position")
	}
	var recipes [][]byte
	if campaign.Confirmable(&f) && f.Trace != "" {
		tr, err := trace.ReadFile(f.Trace)
		if err != nil {
			return nil, fmt.Errorf("replay: reading the trace that predicted the finding: %v", err)
		}
		if recipes, _, err = campaign.RewritesFor(tr, f); err != nil {
			return nil, fmt.Errorf("replay: %v", err)
		}
	} else if s := recipeSchedule(f); s != nil {
		recipes = [][]byte{s}
	} else if f.Replay != "" {
		recipe, err := os.ReadFile(f.Replay)
		if err != nil {
			return nil, fmt.Errorf("replay: reading the schedule of the finding: %v", err)
		}
		recipes = [][]byte{recipe}
	}
	cfg.Packages = []string{f.Package}
	cfg.Run = "^" + regexp.QuoteMeta(f.Test) + "$"
	cfg.Strategy, cfg.Shard, cfg.Enough = "record", campaign.Shard{}, nil
	if cfg.RunsPerTest <= 0 && cfg.TimePerTest <= 0 {
		cfg.RunsPerTest = defaultReplayRuns
	}
	var requests []*campaign.RunRequest
	for k := range max(cfg.RunsPerTest, 1) {
		if len(recipes) == 0 {
			break
		}
		requests = append(requests, &campaign.RunRequest{Strategy: f.Strategy, Parent: f.Run, Key: "replay", Recipe: recipes[k%len(recipes)]})
	}
	res := &Result{}
	err := campaign.Rerun(ctx, cfg, requests, func(bin *build.TestBinary, ar *campaign.AnalyzedRun) bool {
		if res.Reproduced {
			return true // a run that was already under way when the bug showed
		}
		res.Runs++
		res.Run = ar.Run
		res.Blocked = blockedGoroutines(ar.Recorded, bin.Dir)
		res.Verdict = campaign.Judge(f, ar)
		if res.Verdict.Confirmed {
			res.Reproduced, res.Finding = true, confirmedFinding(f, ar, res.Verdict)
		}
		return res.Reproduced
	})
	if errors.Is(err, campaign.ErrNoSuchTest) {
		return nil, fmt.Errorf("replay: test %s not found in package %s", f.Test, f.Package)
	}
	if err != nil && ctx.Err() == nil {
		return nil, err
	}
	return res, err
}

// recipeSchedule is the schedule of f's replay recipe (f.Recipe), nil when f has none or it
// cannot be read: what goweave replay runs. It says more than the schedule of the run that
// found f (f.Replay): a free run's recipe orders its operations as recorded, and a flaky
// failure's pins its select choices and atomics (mutate.PinChoices, PinRun), which the
// steered run's own schedule left free.
func recipeSchedule(f campaign.Finding) []byte {
	if f.Recipe == "" {
		return nil
	}
	rec, err := campaign.LoadRecipe(f.Recipe)
	if err != nil || rec.Schedule == "" || rec.Finding.Fingerprint != f.Fingerprint {
		return nil
	}
	return []byte(rec.Schedule)
}

// confirmedFinding is f as a replay run ar confirmed it.
func confirmedFinding(f campaign.Finding, ar *campaign.AnalyzedRun, v campaign.Verdict) *campaign.Finding {
	g := f
	g.Confidence = analysis.Confirmed
	g.Confirmation = v.String()
	g.Run, g.Trace = ar.Index, ar.Trace
	if ar.Schedule != "" {
		g.Replay = ar.Schedule
	}
	return &g
}

// blockedGoroutines describes the goroutines still blocked when the trace was written,
// with positions relative to dir.
func blockedGoroutines(tr *trace.Trace, dir string) []string {
	if tr == nil {
		return nil
	}
	at := func(pos uint32) string {
		p := tr.Position(pos)
		if p.File == "" {
			return ""
		}
		if rel, err := filepath.Rel(dir, p.File); err == nil && filepath.IsLocal(rel) {
			p.File = rel
		}
		return p.String()
	}
	spawns := map[uint64]uint32{} // goid -> position of the go statement that started it
	for i := range tr.Events {
		if e := &tr.Events[i]; e.Kind == trace.KindGoSpawn {
			spawns[e.A] = e.Pos
		}
	}
	var out []string
	for _, g := range tr.Goroutines {
		if g.Status != 4 && g.Status != 10 { // _Gwaiting, _Gleaked (proven by the exit leak GC)
			continue
		}
		line := fmt.Sprintf("goroutine %d [%s]", g.ID, g.WaitReason)
		var last *trace.Event
		if g.LastEvent >= 0 && g.LastEvent < len(tr.Events) {
			last = &tr.Events[g.LastEvent]
		}
		// Where it waits when the recorder saw it block; else what is known of it.
		switch {
		case last != nil && !last.Completed() && at(last.Pos) != "":
			line += " at " + at(last.Pos)
		case g.ID == 1:
			line += " in the testing package (the main goroutine, waiting for the test to finish)"
		case last != nil && at(last.Pos) != "":
			line += " outside the recorded operations, after its last one at " + at(last.Pos)
		case at(spawns[g.ID]) != "":
			line += " outside the recorded operations, started at " + at(spawns[g.ID])
		default:
			line += " outside the recorded code"
		}
		out = append(out, line)
	}
	return out
}
