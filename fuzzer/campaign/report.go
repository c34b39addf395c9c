package campaign

import (
	"time"

	"github.com/goweave/goweave/analysis"
)

// Progress is passed to the progress callback of Fuzz when a test's first run starts, after
// every run, and once more, with Done set, when the campaign ends.
type Progress struct {
	Package    string        // import path of the test being run
	Test       string        // name of the test being run
	TestsDone  int           // tests whose budget is used up
	TestsTotal int           // tests selected for the campaign
	Runs       int           // runs finished so far, all tests together (confirmations included)
	CutShort   int           // runs stopped unfinished by the end of their test's time budget
	Findings   int           // bugs found so far (one per group of findings, see group.go)
	Hints      int           // predictions their confirmation refuted so far (not in Findings)
	Timing     int           // timing-dependent failures so far (not in Findings; analysis.Timing)
	Elapsed    time.Duration // since the campaign started
	Done       bool          // the campaign has ended
	// Started: this call announces the first run of Package.Test.
	Started bool
	// Stage, before the first run, says what the campaign is doing (the builds: minutes
	// on a cold cache), so that a log without a terminal is not silent meanwhile.
	Stage string
	// Ended are the tests whose campaign ended since the previous call (each once; a
	// test that never ran is not listed).
	Ended []TestEnded
}

// TestEnded sums up the campaign of one test as it ends.
type TestEnded struct {
	Package, Test string
	Runs          int            // runs of the test that finished (confirmations included)
	CutShort      int            // runs stopped unfinished by the end of its time budget
	Analyzed      int            // runs whose trace was analyzed (0 with Runs > 0: its bugs are unknown)
	Findings      int            // bugs found by its runs
	Hints         int            // refuted predictions of its runs (not in Findings)
	Timing        int            // timing-dependent failures of its runs (not in Findings)
	Statuses      map[string]int // runs by how they ended
	Elapsed       time.Duration  // from its first run's start to its last run's end
	Failing       *TestFailure   // every run failed: how (broken.go)
	FailsAfter    *TestFailure   // every run after its passing ones failed: how (leftstate.go)
}

// TestResult summarizes the campaign of one test.
type TestResult struct {
	Package string `json:"package"`
	Test    string `json:"test"`
	// Runs counts the runs that finished, confirmation runs included; Analyzed those whose
	// trace was analyzed (see Report.Warnings for the others); CutShort those stopped
	// unfinished by the end of the time budget (not in Runs); Slow those still making
	// progress at the time limit (-timeout), let go on (Config.RunTimeout).
	Runs     int     `json:"runs"`
	Analyzed int     `json:"analyzed"`
	CutShort int     `json:"cutShort,omitempty"`
	Slow     int     `json:"slow,omitempty"`
	Seconds  float64 `json:"seconds"` // wall-clock time spent running the test
	// Borrowed is the time, in seconds, the test's runs took past its share (-time) of the
	// campaign's time: its first run is not stopped at -time, and one more run may be lent
	// when the first left no room for it (see Report.Budget).
	Borrowed   float64 `json:"borrowed,omitempty"`
	Signatures int     `json:"signatures"` // distinct schedule signatures observed (coverage)
	// Steered counts the runs that had a schedule and that the runtime reports it enforced
	// (trace META "schedule"); fewer than the steered runs requested means the runtime
	// ignored schedules.
	Steered int `json:"steered"`
	// Status is the worst status over all runs (crash > panic > deadlock > timeout > fail >
	// skip > pass).
	Status string `json:"status"`
	// Statuses counts the runs by status.
	Statuses map[string]int `json:"statuses"`
	// When the campaign continued from a saved state (see Config.Fresh): the runs and
	// campaigns before this one, and the distinct signatures of all of them together.
	EarlierRuns      int `json:"earlierRuns,omitempty"`
	EarlierCampaigns int `json:"earlierCampaigns,omitempty"`
	TotalSignatures  int `json:"totalSignatures,omitempty"`
	// Failing: every run failed (a test failure or a panic), how the first did; see
	// Report.Errors.
	Failing *TestFailure `json:"failing,omitempty"`
	// FailsAfter: its first run(s) passed and every later run failed, unsteered ones too:
	// it fails for state an earlier run left behind, not for a schedule (leftstate.go); how
	// the first failing run did. See Report.Errors.
	FailsAfter *TestFailure `json:"failsAfter,omitempty"`
	// Discarded counts the failing runs not counted (not in Runs): each ran while another
	// process of its package did, before any run of the package had failed alone; Serial,
	// why the package's runs were still one at a time when the campaign ended (its first
	// such failure). See fuzzer/campaign/overlap.go.
	Discarded int    `json:"discarded,omitempty"`
	Serial    string `json:"serial,omitempty"`
	// TraceCut counts the runs whose recorder's buffer filled: analyzed on the operations
	// they recorded, for bugs that happened only (see Report.Warnings; tracecut.go).
	TraceCut int `json:"traceCut,omitempty"`
	// AnalysisCut counts the runs too large to analyze whole within the analysis memory
	// budget: analyzed on their first events, for bugs that happened only (tracecut.go).
	AnalysisCut int `json:"analysisCut,omitempty"`
}

// Finding is an analysis finding as found by the campaign: the first run that found it
// (its trace kept), the strategy that produced that run, and how to replay it.
type Finding struct {
	analysis.Finding
	ID       string `json:"id"`               // short stable id derived from the Fingerprint
	Run      int    `json:"run"`              // 1-based index of the run of its test that found it first
	Strategy string `json:"strategy"`         // strategy that produced that run ("record" for plain runs)
	Replay   string `json:"replay,omitempty"` // path of a replay recipe, when the run was steered
	Trace    string `json:"trace,omitempty"`  // path of the trace of that run
	// Recipe is the path of the finding's replay recipe (Recipe, JSON): what `goweave
	// replay` runs. Written when the campaign ends.
	Recipe string `json:"recipe,omitempty"`
	// Confirmation says how the campaign tried to confirm a predicted finding: the
	// outcome of the run that confirmed it, or of the last attempt ("diverged: ...").
	Confirmation string `json:"confirmation,omitempty"`
	// Refuted, for a predicted finding, is the confirmation run that refuted it: it ended
	// without the bug and the test passed ("ran to completion: the test passed without the
	// bug"). The finding is then a hint (SeverityOf): no exit status 1.
	Refuted string `json:"refuted,omitempty"`
	// Earlier: an earlier campaign of the same test binary found it (saved state) and this
	// campaign did not find it again; Run, Trace and Recipe are that campaign's.
	Earlier bool `json:"earlier,omitempty"`
	// Related are the other findings of the same bug (see group.go), each as its detector
	// reported it; their positions follow the cause's own in Positions.
	Related []Related `json:"related,omitempty"`
	// SeenIn is how many runs of this campaign reported the bug (happened or predicted),
	// HappenedIn in how many it happened, of the OfRuns runs of its test(s) (all 0 when
	// only an earlier campaign saw it).
	SeenIn     int `json:"seenIn,omitempty"`
	HappenedIn int `json:"happenedIn,omitempty"`
	OfRuns     int `json:"ofRuns,omitempty"`
	// JoinedTo is, for a panic, failure or hang that its campaign found to come with
	// another finding (rule 7 of analysis.Group), that finding's fingerprint: the saved
	// state keeps the grouping, which needs the campaign's run records.
	JoinedTo string `json:"joinedTo,omitempty"`
}

// Report is the result of a campaign.
type Report struct {
	Findings []Finding    `json:"findings"` // one per bug (see group.go), sorted by file and line
	Tests    []TestResult `json:"tests"`    // one per selected test, sorted by package and test
	// Warnings are problems the campaign went on despite: the campaign state could not be
	// saved, a run's analysis passed its memory budget (that run was not analyzed; the
	// first such run of each test is named), ...
	Warnings []string `json:"warnings,omitempty"`
	// Errors are tests the campaign could not fuzz: a test that failed in every run, named
	// with its failure, and when it failed unsteered too, whether plain go test fails it
	// (broken.go, plain.go); a test that failed in every run after its first pass, for
	// the state it left (leftstate.go).
	Errors []string `json:"errors,omitempty"`
	// Budget says how much of the campaign's time went to tests past their -time (nil
	// without a time budget).
	Budget *BudgetReport `json:"budget,omitempty"`
	// Unfinished are the tests none of whose runs ended on its own (each was stopped): their
	// bugs are unknown, not none. A warning names each too.
	Unfinished []Unfinished `json:"unfinished,omitempty"`
}
