package campaign

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/goweave/goweave/fuzzer/build"
	"github.com/goweave/goweave/fuzzer/run"
)

// Fuzz runs a campaign: it builds the test binaries of cfg.Packages once, runs every test
// selected by cfg.Run and cfg.Shard repeatedly within its budget, analyzes each recorded
// trace and returns the distinct findings. progress, if not nil, is called from a single
// goroutine after every run and once at the end with Done set.
//
// A package that does not compile yields an error wrapping one *build.Error per failing
// package (use errors.As); the other packages are still fuzzed and the report returned
// alongside the error. Cancelling ctx stops all runs and returns the report so far
// together with ctx.Err() (no report when cancelled before the builds finished).
func Fuzz(ctx context.Context, cfg Config, progress func(Progress)) (*Report, error) {
	c, buildErr, err := newCampaign(ctx, cfg, progress)
	if err != nil {
		return nil, errors.Join(buildErr, err)
	}
	defer os.RemoveAll(filepath.Join(c.dir, "bin"))
	c.analyze = true
	c.lone = true // Record keeps what ran; Rerun (replay) reruns a recipe as asked
	c.progress = progress
	if !cfg.Fresh {
		c.loadStates()
		c.enoughAlready()
	}
	c.readLeftBefore()
	c.plain = &plainChecks{ctx: ctx, sem: make(chan struct{}, c.cfg.Parallel), ended: make(chan struct{}, 1)}
	c.loop(ctx)
	c.waitPlain()
	c.noteJoins()
	rep := c.result()
	rep.Warnings = append(c.warnings, rep.Warnings...)
	rep.Warnings = append(rep.Warnings, c.serialWarnings(rep)...)
	// Every distinct finding gets a recipe (the IDs of grouped findings replay too) and is
	// saved; the report shows one finding per bug.
	recipeErr := c.writeRecipes(rep)
	if recipeErr == nil {
		if err := c.saveStates(rep); err != nil {
			// The state only saves the next campaign work: say so, keep the results.
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("the next campaign will start over: %v", err))
		}
	}
	rep.Warnings = append(rep.Warnings, c.hangsLeftOut(rep.Findings)...)
	rep.Warnings = append(rep.Warnings, c.silentWarnings()...)
	if ctx.Err() == nil { // a stopped campaign cut its runs, not their budget
		rep.Warnings = append(rep.Warnings, c.noRunFinished()...)
		rep.Warnings = append(rep.Warnings, c.runWarnings()...)
		if w := c.loanWarning(); w != "" {
			rep.Warnings = append(rep.Warnings, w)
		}
		rep.Unfinished = c.unfinished()
	}
	rep.Budget = c.budgetReport()
	rep.Findings = c.grouped(rep.Findings)
	rep.Errors = c.failingErrors()
	if recipeErr != nil {
		return rep, errors.Join(buildErr, recipeErr)
	}
	if err := c.writeReport(rep); err != nil {
		return rep, errors.Join(buildErr, err)
	}
	return rep, errors.Join(buildErr, ctx.Err())
}

// Record builds the packages of cfg and runs each selected test once, keeping every trace
// (budgets and Strategy are ignored). each is called from a single goroutine for every
// finished run, in completion order. Build errors are returned as by Fuzz, after the tests
// that did build have run.
func Record(ctx context.Context, cfg Config, each func(*AnalyzedRun)) error {
	cfg.RunsPerTest, cfg.TimePerTest, cfg.Strategy = 1, 0, "record"
	c, buildErr, err := newCampaign(ctx, cfg, nil)
	if err != nil {
		return errors.Join(buildErr, err)
	}
	defer os.RemoveAll(filepath.Join(c.dir, "bin"))
	c.keepTraces = true
	c.onRun = each
	c.loop(ctx)
	return errors.Join(buildErr, ctx.Err())
}

// newCampaign applies defaults, builds the binaries and selects the tests. buildErr holds
// the packages that did not compile; err is fatal. progress, if not nil, hears the stages.
func newCampaign(ctx context.Context, cfg Config, progress func(Progress)) (c *campaign, buildErr, err error) {
	stage := func(format string, args ...any) {
		if progress != nil {
			progress(Progress{Stage: fmt.Sprintf(format, args...), Elapsed: time.Since(c.start)})
		}
	}
	if err := applyDefaults(&cfg); err != nil {
		return nil, nil, err
	}
	strategy, err := newStrategy(cfg.Strategy)
	if err != nil {
		return nil, nil, err
	}
	c = &campaign{cfg: cfg, findings: map[string]*Finding{}, recipes: map[string]*recipeParts{}, confirming: map[string]string{}, keepFiles: map[string]bool{}, byPrimary: map[string]*Finding{}, traceRefs: map[string]int{}, start: time.Now()}
	pruneCampaigns(cfg.OutDir, keepCampaigns, campaignMaxAge, campaignsMaxBytes, time.Now().UTC(), savedCampaigns(cfg.OutDir, time.Now()))
	if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
		return nil, nil, err
	}
	// Time for the eye and for pruning, a random suffix for campaigns started at once.
	if c.dir, err = os.MkdirTemp(cfg.OutDir, fmt.Sprintf("%s-%d-*", time.Now().UTC().Format(campaignDirTime), os.Getpid())); err != nil {
		return nil, nil, err
	}
	stage("preparing the patched runtime for the module's Go toolchain")
	overlay, err := prepareOverlay(ctx, cfg.Dir)
	if err != nil {
		return nil, nil, err
	}
	if cfg.Race {
		// on by default: where the platform cannot, build without it and say so
		if ok, why := build.RaceSupported(ctx, cfg.Dir, overlay); !ok {
			cfg.Race, c.cfg.Race = false, false
			c.warnings = append(c.warnings, "built without the race detector: "+why)
		}
	}
	race := ""
	if cfg.Race {
		race = " and the race detector"
	}
	toolchain := "the toolchain"
	if overlay != nil { // nil: the tests' fake overlay
		toolchain = overlay.GoVersion
	}
	stage("building the tests with the patched runtime of %s%s (the first build for a toolchain recompiles the standard library: about a minute of CPU)", toolchain, race)
	bins, buildErr := build.Build(ctx, build.Options{
		Dir: cfg.Dir, Packages: cfg.Packages, Run: cfg.Run, Race: cfg.Race, Vet: cfg.Vet,
		Overlay: overlay, BinDir: filepath.Join(c.dir, "bin"), Parallel: cfg.Parallel,
	})
	var be *build.Error
	if buildErr != nil && !errors.As(buildErr, &be) {
		os.RemoveAll(filepath.Join(c.dir, "bin"))
		return nil, nil, buildErr // not a compile error: go list failed, bad -run, ...
	}
	type ref struct {
		bin  *build.TestBinary
		name string
	}
	var all []ref
	for _, b := range bins {
		for _, name := range b.Tests {
			all = append(all, ref{b, name})
		}
	}
	slices.SortFunc(all, func(a, b ref) int {
		return cmp.Or(cmp.Compare(a.bin.Package, b.bin.Package), cmp.Compare(a.name, b.name))
	})
	for i, r := range all {
		if cfg.Shard.Count > 1 && i%cfg.Shard.Count != cfg.Shard.Index {
			continue
		}
		st, err := strategy(r.bin.Package, r.name)
		if err != nil {
			return nil, nil, err
		}
		c.tests = append(c.tests, &testState{bin: r.bin, name: r.name, strategy: st, worst: run.StatusPass, signatures: map[string]bool{}, statuses: map[string]int{}, seen: map[string]*seenRuns{}})
	}
	c.loans = newLoans(c.cfg, len(c.tests))
	return c, buildErr, nil
}

func applyDefaults(cfg *Config) error {
	if cfg.Dir == "" {
		cfg.Dir = "."
	}
	abs, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return err
	}
	cfg.Dir = abs
	if len(cfg.Packages) == 0 {
		cfg.Packages = []string{"./..."}
	}
	if cfg.Parallel <= 0 {
		cfg.Parallel = runtime.NumCPU()
	}
	if cfg.RunTimeout <= 0 {
		cfg.RunTimeout = 10 * time.Second
	}
	if cfg.TimePerTest <= 0 && cfg.RunsPerTest <= 0 {
		cfg.RunsPerTest = 1
	}
	if cfg.Shard.Count > 1 && (cfg.Shard.Index < 0 || cfg.Shard.Index >= cfg.Shard.Count) {
		return fmt.Errorf("shard index %d out of range for %d shards", cfg.Shard.Index, cfg.Shard.Count)
	}
	if cfg.OutDir == "" {
		if cfg.OutDir, err = DefaultOutDir(cfg.Dir); err != nil {
			return err
		}
	}
	return nil
}

// DefaultOutDir is the output directory of campaigns run in dir when Config.OutDir is
// empty: a directory per module directory under the user cache directory.
func DefaultOutDir(dir string) (string, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no output directory given and no user cache directory: %v", err)
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(cache, "goweave", fmt.Sprintf("%s-%x", filepath.Base(abs), sum[:4])), nil
}

// prepareOverlay is build.Overlay; a variable so that tests can run binaries that write
// fake traces.
var prepareOverlay = build.Overlay
