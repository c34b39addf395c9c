package campaign

import (
	"fmt"
	"strconv"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/runtimepatch"
)

// Runs cut by the recorder's buffer. The runtime records a run's first operations into a
// buffer of fixed size (4M events unless GOWEAVE_EVENTS says otherwise) and counts the rest
// as dropped (trace META "dropped"). Such a run is analyzed on what it recorded: the
// analysis then reports only what happened, not what another schedule would show (its
// happens-before relation misses the lost edges), and no schedule is derived from it. A
// test that loops long enough fills the buffer in every run; before, the report said
// nothing of it (a loop of 2M iterations in 3 goroutines: "1 run, analyzed", 7.8M of its
// 12M operations lost, no warning), so "no bug" read as a verdict on the whole test.
// Each such run says so in the run log (-v), the test's count is TestResult.TraceCut, and
// a warning names the test, the first such run and how much of it was recorded.

// maxRecorderEvents is the most GOWEAVE_EVENTS may ask for (runtimepatch.EnvEvents).
const maxRecorderEvents = 1 << 26

// traceCuts counts a test's runs whose recorder dropped events.
type traceCuts struct {
	runs     int    // runs that lost events
	first    int    // the first one's run number
	recorded int    // events the first one recorded
	dropped  uint64 // events the first one lost
}

// droppedEvents is how many events the recorder of tr's run dropped (0: none, or not said).
func droppedEvents(tr *trace.Trace) uint64 {
	if tr == nil {
		return 0
	}
	n, _ := strconv.ParseUint(tr.Meta["dropped"], 10, 64)
	return n
}

// note counts ar when its recorder dropped events, and returns what its run log says of it
// ("" when none was dropped).
func (c *traceCuts) note(ar *AnalyzedRun) string {
	dropped := droppedEvents(ar.Recorded)
	if dropped == 0 {
		return ""
	}
	recorded := len(ar.Recorded.Events)
	c.runs++
	if c.runs == 1 {
		c.first, c.recorded, c.dropped = ar.Index, recorded, dropped
	}
	return fmt.Sprintf("trace cut: the recorder's buffer was full after %d events, %d more lost", recorded, dropped)
}

// warning says that the test's runs were cut ("" when none was).
func (c *traceCuts) warning(name string) string {
	if c.runs == 0 {
		return ""
	}
	return fmt.Sprintf("%s: %s filled the recorder's buffer and lost operations (run %d recorded its first %d and lost %d more): each was analyzed on what it recorded, for bugs that happened only (no predictions, no schedules derived from it); raise %s (at most %d) or make the test's loops shorter",
		name, plural(c.runs, "run"), c.first, c.recorded, c.dropped,
		runtimepatch.EnvEvents, maxRecorderEvents)
}

// traceCutWarnings are the warnings of the tests whose runs were cut by the recorder.
func (c *campaign) traceCutWarnings() []string {
	var out []string
	for _, t := range c.tests {
		if t.bin == nil {
			continue
		}
		if w := t.cuts.warning(t.bin.Package + "." + t.name); w != "" {
			out = append(out, w)
		}
	}
	return out
}
