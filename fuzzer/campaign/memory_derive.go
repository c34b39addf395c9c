package campaign

import (
	"fmt"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer/mutate"
)

// The schedules of a run are derived from its per-event happens-before clocks, which the
// analysis does not keep (analysis.Result.Clocks computes them again), and from the
// operations' names and orders (mutate.Run.Prepare). On a large run that is more than the
// analysis itself: 1.5 GB of clocks and still growing for one 2.9M-event run of
// panjf2000/ants with 60,000 goroutines, beside its 0.4 GB of decoded trace and 0.45 GB
// of names. They count against the run's analysis budget: past it, no schedule is derived
// from that run (its findings stay; later runs are free or steered from smaller runs),
// and the report says so.

// deriveBytesPerEvent is what the strategies build per event beside the clocks: the
// names (schedule.Name: 156 bytes per event measured on the ants run) and the orders
// (mutate.Run's lin, rank, linPin, pinRank: up to 32 bytes).
const deriveBytesPerEvent = 190

// derivationClocks returns the clocks the strategies need for run ar, within its
// analysis's budget (analysis.Options.MemoryBudget) beside what they derive with them.
func derivationClocks(ar *AnalyzedRun) (mutate.HB, error) {
	events := int64(len(ar.Recorded.Events))
	leave := events * deriveBytesPerEvent
	if tooLargeToDerive(len(ar.Recorded.Events), ar.memory) {
		// Its names and the clocks' per-event tables alone pass it: not even started.
		return nil, &analysis.BudgetError{Budget: ar.memory, Held: leave + events*analysis.BytesPerEvent, Events: int(events), Goroutines: len(ar.Analysis.Goroutines)}
	}
	c, err := ar.Analysis.ClocksLeaving(leave)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// tooLargeToDerive reports whether a run of events events is too large for the names and
// per-event tables of its derivation within the budget memory (bytes, 0: none).
func tooLargeToDerive(events int, memory int64) bool {
	return memory > 0 && int64(events)*(analysis.BytesPerEvent+deriveBytesPerEvent) > memory
}

// notDerived notes a run of the test whose schedules were not derived for want of memory:
// the first is named in the report, the others counted.
type notDerived struct {
	first *analysis.BudgetError
	index int // the first's run number
	runs  int
	// cutIndex is the first run whose schedules were cut at recipeShare of the budget,
	// cutRuns how many were.
	cutIndex, cutRuns int
	cutAt             int64 // bytes
}

// recipeShare is the part of a run's analysis budget the schedules derived from it may
// take: they stay queued after the run is dropped (a buffer-filling run of xtaci/smux gave
// 322 MiB of them, beside the next run's inspection). The strategies' first proposals are
// their most promising: the rest are not kept.
const recipeShare = 4

// recipesFit reports whether held bytes of schedules derived from run ar fit their share.
func recipesFit(ar *AnalyzedRun, held int) bool {
	return ar.memory <= 0 || int64(held) <= ar.memory/recipeShare
}

func (n *notDerived) cut(ar *AnalyzedRun) {
	if n.cutRuns == 0 {
		n.cutIndex, n.cutAt = ar.Index, ar.memory/recipeShare
	}
	n.cutRuns++
}

func (n *notDerived) note(ar *AnalyzedRun, be *analysis.BudgetError) {
	if n.first == nil {
		n.first, n.index = be, ar.Index
	}
	n.runs++
}

// warnings say what was not derived.
func (n *notDerived) warnings(pkg, test string) []string {
	var out []string
	if w := n.warning(pkg, test); w != "" {
		out = append(out, w)
	}
	if n.cutRuns > 0 {
		w := fmt.Sprintf("schedules derived from %s.%s run %d stopped at %d MB, a quarter of the analysis's memory budget: its strategies' later proposals are not run; raise -analysis-memory",
			pkg, test, n.cutIndex, n.cutAt>>20)
		if n.cutRuns > 1 {
			w += fmt.Sprintf(" (so were %d more runs of %s)", n.cutRuns-1, test)
		}
		out = append(out, w)
	}
	return out
}

// warning says which runs were too large to derive schedules from, or "".
func (n *notDerived) warning(pkg, test string) string {
	if n.first == nil {
		return ""
	}
	be := n.first
	what := fmt.Sprintf("%d events", be.Events)
	if be.Goroutines > 0 {
		what += fmt.Sprintf(" of %d goroutines", be.Goroutines)
	}
	w := fmt.Sprintf("no schedules derived from %s.%s run %d: its happens-before clocks, with the names and orders the strategies build, "+
		"need more than the analysis's memory budget of %d MB (%s); its findings are reported, its interleavings not steered further (nor, past about %d events, counted as coverage); raise -analysis-memory",
		pkg, test, n.index, (be.Budget+1<<20-1)>>20, what, be.Budget/(analysis.BytesPerEvent+deriveBytesPerEvent))
	if n.runs > 1 {
		w += fmt.Sprintf(" (so were %d more runs of %s)", n.runs-1, test)
	}
	return w
}

// derivationWarnings are the report's warnings of the tests some of whose runs were too
// large to derive schedules from.
func (c *campaign) derivationWarnings() []string {
	var out []string
	for _, t := range c.tests {
		if st, ok := t.strategy.(*steeringStrategy); ok {
			out = append(out, st.notDerived.warnings(t.bin.Package, t.name)...)
		}
	}
	return out
}

// budgetBytes is the analysis budget of Config.AnalysisMemory in bytes (0: none).
func budgetBytes(memory int64) int64 { return analysis.Options{MemoryBudget: memory}.Budget() }
