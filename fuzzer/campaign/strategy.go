package campaign

import (
	"fmt"
	"slices"
	"time"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/run"
)

// A RunRequest asks for one steered run of a test. Strategies produce them from analyzed
// runs; the campaign writes the recipe to a file and passes its path to the test process in
// GOWEAVE_SCHEDULE. A nil *RunRequest is a free run.
type RunRequest struct {
	Strategy string // the strategy that proposed it
	Parent   int    // the run whose trace it was derived from (1-based)
	Key      string // identifies what the schedule steers; the run reports it as its origin
	Note     string // what the schedule changes, in one line, for people (goweave fuzz -v)
	// Recipe is the schedule file the goweave runtime enforces (select preferences, delays,
	// an order of operations; see fuzzer/schedule). The campaign only stores and forwards it.
	Recipe []byte
}

// A Strategy steers the runs of one test. The campaign creates one per test and calls it
// from a single goroutine.
type Strategy interface {
	// Name is the Config.Strategy value that selects the strategy.
	Name() string
	// Mutate is called with every analyzed run of the test and returns the runs the
	// campaign should make next, most promising first. Runs are free when none are queued.
	Mutate(run *AnalyzedRun) []*RunRequest
}

// An AnalyzedRun is a finished run with its trace read and analyzed.
type AnalyzedRun struct {
	*run.Run
	Index     int         // 1-based run number within its test
	Request   *RunRequest // what the run enforced; nil for a free run
	Events    int         // events in the trace
	Signature string      // hash of the order of operations: equal signatures, same interleaving
	Steered   bool        // the runtime reports it enforced the run's schedule
	TraceErr  error       // why the trace could not be read, if it could not
	Findings  []Finding   // what the analysis found in this run (before deduplication)
	// Recorded is the decoded trace (nil when it could not be read) and Analysis its
	// happens-before analysis (nil for Record, which does not analyze). They are large: the
	// campaign drops them once the strategy has seen the run.
	Recorded *trace.Trace
	Analysis *analysis.Result
	// Choices is what the run's selects chose among ready cases (selectcause.go).
	Choices analysis.SelectChoices
	// Deadline, when not zero, is the end of the test's time budget: a strategy's
	// proposals after it come too late to run (mutate.Run.Deadline).
	Deadline time.Time
	// held releases the inspection's reservation from the analyses' pool (memory_hold.go);
	// memory is the analysis's memory budget in bytes (0: none), which the schedules
	// derived from the run count against too (memory_derive.go).
	held   func()
	memory int64
}

// recordStrategy never steers: every run is a plain recorded run, and the variety comes
// from the scheduler's own nondeterminism.
type recordStrategy struct{}

func (recordStrategy) Name() string                      { return "record" }
func (recordStrategy) Mutate(*AnalyzedRun) []*RunRequest { return nil }

// newStrategy returns a constructor of the named strategy for one test.
//
// The steering strategies write schedules that the goweave runtime enforces; a runtime
// that does not (yet) enforce one runs the test free (its trace has no META "schedule").
func newStrategy(name string) (func(pkg, test string) (Strategy, error), error) {
	switch name {
	case "record":
		return func(string, string) (Strategy, error) { return recordStrategy{}, nil }, nil
	case "", "auto":
		name = "auto"
	}
	if !slices.Contains(Strategies, name) {
		return nil, fmt.Errorf("unknown strategy %q (valid: %v)", name, Strategies)
	}
	return func(pkg, test string) (Strategy, error) {
		return newSteeringStrategy(name, testSeed(pkg, test))
	}, nil
}
