package fuzzer

import (
	"context"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer/build"
	"github.com/goweave/goweave/fuzzer/campaign"
	"github.com/goweave/goweave/fuzzer/replay"
	"github.com/goweave/goweave/fuzzer/run"
)

// The types of a campaign, its results and its replays; see the subpackage of each.
type (
	Config      = campaign.Config
	TestID      = campaign.TestID
	Shard       = campaign.Shard
	Progress    = campaign.Progress
	Report      = campaign.Report
	TestResult  = campaign.TestResult
	Finding     = campaign.Finding
	TestEnded   = campaign.TestEnded
	Related     = campaign.Related
	RunLog      = campaign.RunLog
	AnalyzedRun = campaign.AnalyzedRun

	Cleaned            = campaign.Cleaned
	Recipe             = campaign.Recipe
	SourceChangedError = campaign.SourceChangedError
	ReplayResult       = replay.Result
	ReplayOptions      = replay.Options

	TestFailure  = campaign.TestFailure
	BudgetReport = campaign.BudgetReport
	Unfinished   = campaign.Unfinished

	BuildError = build.Error
	Status     = run.Status
)

// How one run of a test ended (run.Status).
const (
	StatusFail     = run.StatusFail
	StatusPanic    = run.StatusPanic
	StatusDeadlock = run.StatusDeadlock
	StatusTimeout  = run.StatusTimeout
	StatusCrash    = run.StatusCrash
)

// OutcomeConfirmed is the outcome (campaign.Verdict.Outcome) of a replay or confirmation
// run in which the bug happened at the expected positions.
const OutcomeConfirmed = campaign.OutcomeConfirmed

// SeverityHint is the severity of a predicted finding its confirmation refuted
// (Finding.Refuted): below a warning; it sets no exit status.
const SeverityHint = campaign.SeverityHint

// SeverityOf is the severity of f as the CLI, the SARIF and the editor show it: the
// analysis's (analysis.SeverityOfFinding), a hint when f's confirmation refuted it.
func SeverityOf(f *Finding) analysis.Severity { return campaign.SeverityOf(f) }

// Gating reports whether f is a bug for an exit status or a CI gate: actual, confirmed,
// or predicted and not refuted.
func Gating(f *Finding) bool { return campaign.Gating(f) }

// Strategies lists the valid values of Config.Strategy.
var Strategies = campaign.Strategies

// Fuzz runs a campaign; see campaign.Fuzz.
func Fuzz(ctx context.Context, cfg Config, progress func(Progress)) (*Report, error) {
	return campaign.Fuzz(ctx, cfg, progress)
}

// Record runs each selected test once, keeping every trace; see campaign.Record.
func Record(ctx context.Context, cfg Config, each func(*AnalyzedRun)) error {
	return campaign.Record(ctx, cfg, each)
}

// DefaultOutDir is the output directory of campaigns run in dir when Config.OutDir is
// empty; see campaign.DefaultOutDir.
func DefaultOutDir(dir string) (string, error) { return campaign.DefaultOutDir(dir) }

// Replay reruns the test that found f until the bug happens; see replay.Replay.
func Replay(ctx context.Context, cfg Config, f Finding) (*ReplayResult, error) {
	return replay.Replay(ctx, cfg, f)
}

// ReplayRecipe replays a finding's recipe; see replay.ReplayRecipe.
func ReplayRecipe(ctx context.Context, rec *Recipe, opts ReplayOptions) (*ReplayResult, error) {
	return replay.ReplayRecipe(ctx, rec, opts)
}

// LoadRecipe reads a recipe file; see campaign.LoadRecipe.
func LoadRecipe(path string) (*Recipe, error) { return campaign.LoadRecipe(path) }

// FindRecipe returns the path of the newest recipe of the finding id; see
// campaign.FindRecipe.
func FindRecipe(outDir, dir, id string) (string, error) { return campaign.FindRecipe(outDir, dir, id) }

// Clean removes what campaigns left in outDir ("" means DefaultOutDir(dir)); see
// campaign.Clean.
func Clean(outDir, dir string) (Cleaned, error) { return campaign.Clean(outDir, dir) }
