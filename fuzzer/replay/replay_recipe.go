package replay

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer/build"
	"github.com/goweave/goweave/fuzzer/campaign"
	"github.com/goweave/goweave/fuzzer/run"
)

// Options control ReplayRecipe.
type Options struct {
	// Runs is the number of attempts (default 3): a replay of a recorded schedule
	// reproduces at once, a predicted finding's rewrites are tried in turn.
	Runs int
	// RunTimeout is the time limit of one test process (default 10s); a run that
	// deadlocks by design ends with the runtime's deadlock report long before.
	RunTimeout time.Duration
	// OutDir receives the schedules, traces and (when the campaign's copy is gone) the
	// test binary of the replay; default a new directory under Base (NewOutDir), or a new
	// temporary directory without Base. Made only once the recipe's checks passed.
	OutDir string
	Base   string
	// Force replays even when the rebuilt test binary differs from the recorded one (the
	// lines the recipe names must still be unchanged).
	Force bool
}

// ReplayRecipe rebuilds the recipe's test, checks that the code is the one it was
// recorded with, and runs the test under the recipe's schedule (for a predicted finding,
// under its rewrites in turn) until the bug happens or opts.Runs runs are spent. A
// changed source is a *campaign.SourceChangedError, not a replay.
func ReplayRecipe(ctx context.Context, rec *campaign.Recipe, opts Options) (*Result, error) {
	if opts.Runs <= 0 {
		opts.Runs = 3
	}
	if opts.RunTimeout <= 0 {
		opts.RunTimeout = 10 * time.Second
	}
	if err := rec.CheckPlace(); err != nil {
		return nil, err
	}
	if err := rec.CheckSource(); err != nil {
		return nil, err
	}
	if opts.OutDir == "" {
		var err error
		if opts.Base != "" {
			opts.OutDir, err = NewOutDir(opts.Base, rec.Finding.ID, time.Now())
		} else {
			opts.OutDir, err = os.MkdirTemp("", "goweave-replay-*")
		}
		if err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(opts.OutDir, 0o755); err != nil {
		return nil, err
	}
	bin, err := rebuild(ctx, rec, opts.OutDir)
	if err != nil {
		return nil, err
	}
	if err := rec.CheckBinary(bin.Path, opts.Force); err != nil {
		return nil, err
	}

	schedules := []string{rec.Schedule}
	if rec.Finding.Confidence == analysis.Predicted && len(rec.Confirm) > 0 {
		schedules = rec.Confirm
	}
	res := &Result{}
	for k := range opts.Runs {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		runOpts := run.Options{Trace: filepath.Join(opts.OutDir, fmt.Sprintf("run-%d.trace", k+1)), Timeout: opts.RunTimeout}
		var req *campaign.RunRequest
		if s := schedules[k%len(schedules)]; s != "" {
			runOpts.Schedule = filepath.Join(opts.OutDir, fmt.Sprintf("run-%d.schedule", k+1))
			if err := os.WriteFile(runOpts.Schedule, []byte(s), 0o644); err != nil {
				return nil, err
			}
			req = &campaign.RunRequest{Strategy: "replay", Key: "replay", Recipe: []byte(s)}
		}
		r, err := run.Test(ctx, bin, rec.Test, runOpts)
		if err != nil {
			return nil, err
		}
		ar := campaign.Inspect(bin, rec.Test, k+1, req, r, true, 0)
		res.Runs++
		res.Run = r
		res.Blocked = blockedGoroutines(ar.Recorded, bin.Dir)
		res.Verdict = campaign.Judge(rec.Finding, ar)
		res.Command = run.CommandLine(bin, rec.Test, runOpts)
		if res.Verdict.Confirmed {
			res.Reproduced, res.Finding = true, confirmedFinding(rec.Finding, ar, res.Verdict)
			break
		}
	}
	return res, nil
}

// rebuild builds the recipe's package with the goweave runtime into dir.
func rebuild(ctx context.Context, rec *campaign.Recipe, dir string) (*build.TestBinary, error) {
	overlay, err := build.Overlay(ctx, rec.Dir)
	if err != nil {
		return nil, err
	}
	bins, err := build.Build(ctx, build.Options{
		Dir: rec.Dir, Packages: []string{"."}, Run: "^" + regexp.QuoteMeta(rec.Test) + "$",
		Race: rec.Race, Vet: rec.Vet, Overlay: overlay, BinDir: dir, Parallel: 1,
	})
	if err != nil {
		return nil, fmt.Errorf("rebuilding the test of %s: %w", rec.Package, err)
	}
	if len(bins) != 1 {
		return nil, fmt.Errorf("the package in %s no longer has a test %s", rec.Dir, rec.Test)
	}
	return bins[0], nil
}
