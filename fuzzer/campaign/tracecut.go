package campaign

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/runtimepatch"
)

// Runs cut by the recorder's buffer. The runtime records a run's first operations into a
// buffer of fixed size (4M events unless GOWEAVE_EVENTS says otherwise) and counts the rest
// as dropped (trace META "dropped"). Such a run is analyzed on what it recorded: the
// analysis then reports only what happened, not what another schedule would show (its
// happens-before relation misses the lost edges), and the schedules that reorder a whole
// run (gopie, prefix, confirmation) are not derived from it. A test that loops long enough
// fills the buffer in every run; before, the report said nothing of it (a loop of 2M
// iterations in 3 goroutines: "1 run, analyzed", 7.8M of its 12M operations lost, no
// warning), so "no bug" read as a verdict on the whole test. Each such run says so in the
// run log (-v), the test's count is TestResult.TraceCut, and a warning names the test, the
// first such run and how much of it was recorded. A run whose trace is read in part for
// the analysis memory budget (prefixWithin) is reported the same way (AnalysisCut).

// maxRecorderEvents is the most GOWEAVE_EVENTS may ask for (runtimepatch.EnvEvents).
const maxRecorderEvents = 1 << 26

// traceCuts counts a test's runs analyzed on part of what they did: the recorder's buffer
// filled, or the analysis memory budget held only the trace's first events (prefixWithin).
type traceCuts struct {
	recorder, budget cutRuns
}

// cutRuns counts runs cut one way, and how the first was.
type cutRuns struct {
	runs  int    // runs cut
	first int    // the first one's run number
	kept  int    // events the first one kept
	lost  uint64 // records the first one lost
}

func (c *cutRuns) add(index, kept int, lost uint64) {
	c.runs++
	if c.runs == 1 {
		c.first, c.kept, c.lost = index, kept, lost
	}
}

// droppedEvents is how many events the recorder of tr's run dropped, and the reading of its
// trace left out (0: none, or not said).
func droppedEvents(tr *trace.Trace) uint64 {
	if tr == nil {
		return 0
	}
	n, _ := strconv.ParseUint(tr.Meta["dropped"], 10, 64)
	return n
}

// note counts ar when it was cut, and returns what its run log says of it ("" when it was
// not).
func (c *traceCuts) note(ar *AnalyzedRun) string {
	tr := ar.Recorded
	if tr == nil {
		return ""
	}
	var says []string
	if lost := droppedEvents(tr) - tr.Cut; lost > 0 {
		recorded := len(tr.Events) + int(tr.Cut)
		c.recorder.add(ar.Index, recorded, lost)
		says = append(says, fmt.Sprintf("trace cut: the recorder's buffer was full after %d events, %d more lost", recorded, lost))
	}
	if tr.Cut > 0 {
		c.budget.add(ar.Index, len(tr.Events), tr.Cut)
		says = append(says, fmt.Sprintf("analysis cut: the memory budget held its first %d events, %d more left out", len(tr.Events), tr.Cut))
	}
	return strings.Join(says, "; ")
}

// warnings say that the test's runs were cut (none when none was).
func (c *traceCuts) warnings(name string, memory int64) []string {
	var out []string
	if r := c.recorder; r.runs > 0 {
		out = append(out, fmt.Sprintf("%s: %s filled the recorder's buffer and lost operations (run %d recorded its first %d and lost %d more): each was analyzed on what it recorded, for bugs that happened only (no predictions; no gopie, prefix or confirmation schedule is derived from it); raise %s (at most %d) or make the test's loops shorter",
			name, plural(r.runs, "run"), r.first, r.kept, r.lost, runtimepatch.EnvEvents, maxRecorderEvents))
	}
	if r := c.budget; r.runs > 0 {
		out = append(out, fmt.Sprintf("%s: %s too large to analyze whole within the analysis memory budget (%d MB) (run %d: its first %d events analyzed, %d more left out): each was analyzed on its first operations, for bugs that happened only (no predictions; no gopie, prefix or confirmation schedule is derived from it); raise -analysis-memory or make the test's loops shorter",
			name, wasWere(r.runs), memory>>20, r.first, r.kept, r.lost))
	}
	return out
}

// traceCutWarnings are the warnings of the tests whose runs were cut.
func (c *campaign) traceCutWarnings() []string {
	var out []string
	for _, t := range c.tests {
		if t.bin != nil {
			out = append(out, t.cuts.warnings(t.bin.Package+"."+t.name, budgetBytes(c.cfg.AnalysisMemory))...)
		}
	}
	return out
}

// wasWere is "1 run was", "3 runs were".
func wasWere(n int) string {
	if n == 1 {
		return "1 run was"
	}
	return fmt.Sprintf("%d runs were", n)
}
