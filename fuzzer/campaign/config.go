package campaign

import "time"

// Config describes one fuzzing campaign. The zero value of every field except Dir has a
// usable default (see each field).
type Config struct {
	// Dir is the directory in which package patterns are resolved: a module root or a
	// directory below it. Empty means the current directory.
	Dir string
	// Packages are package patterns as for go test; default ["./..."].
	Packages []string
	// Run is a regular expression selecting tests by name, like go test -run; empty selects
	// every test.
	Run string
	// TimePerTest is the wall-clock budget of each test across all its runs; 0 means no time
	// budget (RunsPerTest alone bounds the campaign). When both are 0, each test runs once.
	// The tests started before any test ended also pay for the build, up to half their
	// budget (campaign.budgetStart).
	TimePerTest time.Duration
	// RunsPerTest is the maximum number of runs of each test; 0 means no run budget.
	RunsPerTest int
	// Strategy picks how later runs are steered: "auto", "gfuzz" (select-case preference),
	// "gopie" (reordering of operations), "flow" (delays), "prefix" (replay of a prefix and
	// mutation after it) or "record" (plain repeated runs, no steering). Empty means "auto".
	Strategy string
	// Parallel is the number of test processes running at once; default runtime.NumCPU().
	Parallel int
	// Race builds the test binaries with -race (goweave fuzz and the language server set it
	// unless told not to). Where the toolchain cannot (no race detector for the target, cgo
	// off) the campaign builds without it and Report.Warnings says why.
	Race bool
	// Vet is go test's -vet for the builds: empty runs go test's default checks, "off" none
	// (a module whose Example fails go vet builds with "off"), else the checks to run.
	Vet string
	// RunTimeout is the time limit of one test process; on expiry the process gets SIGQUIT
	// (the patched runtime flushes its trace), then SIGKILL. Default 10s.
	RunTimeout time.Duration
	// OutDir is where test binaries, traces, results and replay recipes go. Default: a
	// directory under the user cache dir (os.UserCacheDir()/goweave).
	OutDir string
	// Shard selects a deterministic part of the tests, for splitting a campaign over CI jobs.
	// The zero value selects every test.
	Shard Shard
	// Enough, if not nil, is asked after every run of a test, with the distinct findings of
	// that test so far; true ends the test's campaign before its budget is spent (e.g. once
	// every expected bug has been found).
	Enough func(test TestID, found []Finding) bool
	// Fresh starts every test over: the state saved by earlier campaigns of the same test
	// binary in OutDir (coverage, schedules run and queued, findings) is ignored, and
	// replaced when this campaign ends.
	Fresh bool
	// AnalysisMemory is the memory budget of the analysis of one run, in bytes (0:
	// analysis.DefaultMemoryBudget(), a quarter of the machine's and at most 1 GiB;
	// negative: none). The analyses running at once share it (one waits while the others
	// would pass it together); the process's soft memory limit is set for the default
	// budget (LimitMemory). A run past it is not analyzed and the campaign goes on:
	// Report.Warnings names the run.
	AnalysisMemory int64
	// StateBytes is the byte budget of the state saved for each test (see Fresh); default
	// DefaultStateBytes. Past it the least useful entries are dropped first: the queued
	// schedules, latest first, then interleavings seen and keys of schedules run.
	StateBytes int64
	// Log, if not nil, is called after every run with what steered it and what it found
	// (goweave fuzz -v), from the campaign's own goroutine.
	Log func(RunLog)
}

// TestID names one test of a campaign.
type TestID struct {
	Package string // import path
	Dir     string // package directory
	Test    string // top-level test name
}

// Shard selects the tests whose position in the sorted list of (package, test) pairs is
// Index modulo Count. Count 0 or 1 means no sharding; Index is 0-based.
type Shard struct {
	Index int
	Count int
}

// Strategies lists the valid values of Config.Strategy.
var Strategies = []string{"auto", "gfuzz", "gopie", "flow", "prefix", "record"}

// DefaultStateBytes is the default Config.StateBytes.
const DefaultStateBytes = 64 << 20
