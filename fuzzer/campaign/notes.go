package campaign

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/run"
)

// Nothing silent: what a campaign could not do for a test is a warning of its report (the
// text summary, -json, the editor), never left to -v. Per test: runs that went on past the
// time limit because they were still making progress (slow, not hung); runs whose analysis
// did not finish or did not start (the time budget, an analysis error; the memory budget
// has its own warning, overBudget); the first run's analysis going on past the time budget
// (the first run is analyzed past it, up to a bound: firstbound.go); runs stopped unfinished by the time budget that
// mattered (a confirmation, a run longer than every finished one).

// slowFactor sets the cap of a run still making progress at its time limit: slowFactor
// times the test's slowest passing run (this campaign's and earlier campaigns'), never less
// than -timeout; while no run of the test has passed, slowFactor times -timeout or the
// test's -time, whichever is longer: a test given -time 45s whose one run takes 35 s under
// goweave (3 goroutines × 100k iterations) was stopped at 30 s, every run, and analyzed
// only as far as it got.
const slowFactor = 3

// slowLimit is how long a run of t still making progress at the time limit may go on.
func (c *campaign) slowLimit(t *testState) time.Duration {
	if t.slowestPass > 0 {
		return max(c.cfg.RunTimeout, slowFactor*t.slowestPass)
	}
	return max(slowFactor*c.cfg.RunTimeout, c.cfg.TimePerTest)
}

// testNotes gathers, per test, what its warnings say.
type testNotes struct {
	analyzed   int           // runs whose trace was read and analyzed
	cutShort   int           // analysis cut by the end of the time budget (errCutShort)
	skipped    int           // analysis not started: it would overrun the budget (wouldOverrun)
	overBudget int           // analysis stopped at its memory budget (campaign.overBudget names the first)
	failed     int           // analysis failed otherwise (no trace, a bad trace)
	failure    error         // the first such failure
	firstLate  time.Duration // the first run's analysis went on that long past the time budget
	firstCut   error         // the first run's analysis was stopped at its bound (firstbound.go)
	longestRun time.Duration // longest finished run

	slow        int           // runs that went on past the time limit, making progress, and ended on their own
	slowLongest time.Duration // the longest of them
	capped      int           // runs stopped at their cap while still making progress
	capLimit    time.Duration // the cap they were stopped at
	evidence    string        // what showed progress, latest

	cutConfirm int           // confirmation runs stopped unfinished by the time budget
	cutLongest time.Duration // longest run stopped unfinished

	inspectTime   time.Duration // reading and analyzing the traces analyzed so far took
	inspectEvents int           // events of those traces
}

// finished notes a finished run; analyzed: the campaign analyzes its runs.
func (n *testNotes) finished(res jobResult, analyzed bool) {
	ar := res.run
	n.longestRun = max(n.longestRun, ar.Elapsed)
	switch {
	case ar.Progressing:
		n.capped++
		n.capLimit = res.slowLimit
		n.evidence = ar.Evidence
	case ar.Slow && ar.Status != run.StatusTimeout: // not stopped once it stopped progressing
		n.slow++
		n.slowLongest = max(n.slowLongest, ar.Elapsed)
		n.evidence = ar.Evidence
	}
	n.firstLate = max(n.firstLate, res.late)
	if !analyzed {
		return
	}
	_, overBudget := errors.AsType[*analysis.BudgetError](ar.TraceErr)
	switch {
	case ar.TraceErr == nil:
		n.analyzed++
		if res.inspected > 0 && ar.Events > 0 {
			n.inspectTime += res.inspected
			n.inspectEvents += ar.Events
		}
	case errors.Is(ar.TraceErr, errCutShort):
		n.cutShort++
	case errors.Is(ar.TraceErr, errFirstCut):
		n.firstCut = ar.TraceErr
	case errors.Is(ar.TraceErr, errWouldOverrun):
		n.skipped++
	case overBudget:
		n.overBudget++
	default:
		n.failed++
		if n.failure == nil {
			n.failure = ar.TraceErr
		}
	}
}

// cut notes a run stopped unfinished.
func (n *testNotes) cut(res jobResult) {
	n.cutLongest = max(n.cutLongest, res.run.Elapsed)
	if res.request != nil && res.request.Strategy == "confirm" {
		n.cutConfirm++
	}
}

// perEvent is what reading and analyzing one event took so far (0: not known).
func (n *testNotes) perEvent() time.Duration {
	if n.inspectEvents == 0 {
		return 0
	}
	return n.inspectTime / time.Duration(n.inspectEvents)
}

// errWouldOverrun is the TraceErr of a run not analyzed because its analysis would not end
// within the test's time budget.
var errWouldOverrun = errors.New("not analyzed: its analysis would not end within the time budget")

// wouldOverrun returns an error wrapping errWouldOverrun when analyzing the trace at path,
// at perEvent an event, would take longer than left (and more than a second: a small
// trace's estimate is mostly fixed costs).
func wouldOverrun(path string, perEvent, left time.Duration) error {
	fi, err := os.Stat(path)
	if perEvent <= 0 || err != nil {
		return nil
	}
	events := fi.Size() / trace.RecordSize
	if est := time.Duration(events) * perEvent; est > left && est > time.Second {
		return fmt.Errorf("%w (about %s for %d events, %s left)", errWouldOverrun, est.Round(100*time.Millisecond), events, max(left, 0).Round(100*time.Millisecond))
	}
	return nil
}

// runWarnings are the warnings of the tests' runs (see above).
func (c *campaign) runWarnings() []string {
	var out []string
	for _, t := range c.tests {
		n := &t.notes
		name := t.bin.Package + "." + t.name
		if w := c.slowWarning(name, n); w != "" {
			out = append(out, w)
		}
		if c.analyze {
			if w := c.analysisWarning(name, t.runs, n); w != "" {
				out = append(out, w)
			}
		}
		if n.firstLate > 0 && n.firstCut == nil {
			out = append(out, fmt.Sprintf("%s: the analysis of its first run went on %s past its time budget (-time %s): a test's first run is analyzed past it, for up to %s",
				name, n.firstLate.Round(100*time.Millisecond), c.cfg.TimePerTest, c.firstAnalysisBound()))
		}
		if w := c.noRoomWarning(name, t); w != "" {
			out = append(out, w)
		}
		if n.cutConfirm > 0 {
			out = append(out, fmt.Sprintf("%s: %s stopped unfinished by the end of its time budget (-time %s): a predicted finding may stay unconfirmed; raise -time",
				name, plural(n.cutConfirm, "confirmation run"), c.cfg.TimePerTest))
		}
		if t.runs > 0 && n.cutConfirm == 0 && n.cutLongest >= time.Second && n.cutLongest > 2*n.longestRun {
			out = append(out, fmt.Sprintf("%s: a run was stopped unfinished by the end of its time budget (-time %s) after %s, longer than any finished run (%s): raise -time",
				name, c.cfg.TimePerTest, n.cutLongest.Round(100*time.Millisecond), shortDuration(n.longestRun)))
		}
	}
	return out
}

// slowWarning names a test whose runs went on past -timeout, making progress.
func (c *campaign) slowWarning(name string, n *testNotes) string {
	if n.slow == 0 && n.capped == 0 {
		return ""
	}
	limit := c.cfg.RunTimeout
	var parts []string
	if n.slow > 0 {
		parts = append(parts, fmt.Sprintf("%s past the time limit of %s, making progress (%s), and ended, the longest in %s",
			plural(n.slow, "run"), limit, n.evidence, n.slowLongest.Round(100*time.Millisecond)))
	}
	if n.capped > 0 {
		parts = append(parts, fmt.Sprintf("%s stopped at %s still making progress (%s; the cap: %d× the slowest passing run, or before one passed %d× -timeout or -time, the longer)",
			plural(n.capped, "run"), n.capLimit, n.evidence, slowFactor, slowFactor))
	}
	longest := max(n.slowLongest, n.capLimit)
	suggest := time.Duration(math.Ceil(1.5*longest.Seconds())) * time.Second
	return fmt.Sprintf("%s: slow, not hung: %s; not reported as hangs; raise the time limit (-timeout %s or more)",
		name, strings.Join(parts, "; "), suggest)
}

// analysisWarning names a test with runs that were not analyzed, and says when none was.
func (c *campaign) analysisWarning(name string, runs int, n *testNotes) string {
	var why []string
	if n.cutShort > 0 {
		why = append(why, fmt.Sprintf("%d: the time budget (-time %s) ended during the analysis", n.cutShort, c.cfg.TimePerTest))
	}
	if n.skipped > 0 {
		why = append(why, fmt.Sprintf("%d: the analysis would not have ended within the time budget (-time %s), so it did not start", n.skipped, c.cfg.TimePerTest))
	}
	if n.overBudget > 0 {
		why = append(why, fmt.Sprintf("%d: past the memory budget of the analysis (-analysis-memory)", n.overBudget))
	}
	if n.firstCut != nil {
		why = append(why, fmt.Sprintf("1: %v (-time %s; a first run's analysis may go on %s past it); raise -time or make the test smaller",
			n.firstCut, c.cfg.TimePerTest, c.firstAnalysisBound()))
	}
	if n.failed > 0 {
		why = append(why, fmt.Sprintf("%d: %v", n.failed, n.failure))
	}
	switch {
	case runs > 0 && n.analyzed == 0:
		return fmt.Sprintf("%s: none of its %s was analyzed (%s): its bugs are unknown, not none", name, plural(runs, "run"), strings.Join(why, "; "))
	case len(why) > 0:
		return fmt.Sprintf("%s: %d of its %s not analyzed (%s)", name, runs-n.analyzed, plural(runs, "run"), strings.Join(why, "; "))
	}
	return ""
}

// plural is "1 run", "3 runs".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// shortDuration rounds d for a message: to the millisecond under a second (a test's runs
// often take a few: rounded to 100 ms they read "0s"), else to 100 ms.
func shortDuration(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(100 * time.Millisecond)
}
