package mutate

import (
	"fmt"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// PartialHB adapts a happens-before relation that only knows some pairs (like
// analysis.Result.HappensBefore, which answers ok=false for pairs whose clocks it did not
// keep): unknown pairs count as unordered. Strategies then prune less and propose schedules
// that may diverge, which the runtime's windows bound.
type PartialHB func(a, b int) (hb, ok bool)

// HappensBefore implements HB.
func (f PartialHB) HappensBefore(i, j int) bool {
	hb, ok := f(i, j)
	return ok && hb
}

// Concurrent implements HB.
func (f PartialHB) Concurrent(i, j int) bool {
	return i != j && !f.HappensBefore(i, j) && !f.HappensBefore(j, i)
}

// PartnersByPosition spreads possible partners known per select statement (position -> cases
// with a possible partner, as analysis.Result.SelectPartners aggregates them) onto every
// execution of the select in t, leaving out each execution's own choice. The result is a
// Run.SelectPartners.
func PartnersByPosition(t *trace.Trace, byPos map[schedule.Pos][]int) map[int][]int {
	out := make(map[int][]int)
	for i := range t.Events {
		e := &t.Events[i]
		if e.Kind != trace.KindSelect {
			continue
		}
		p := t.Position(e.Pos)
		chosen := recordedCase(e)
		var cases []int
		for _, c := range byPos[schedule.Pos{File: p.File, Line: p.Line}] {
			if c != chosen && c >= 0 && c < len(e.Cases) {
				cases = append(cases, c)
			}
		}
		out[i] = cases
	}
	return out
}

// Names lists the strategies New knows.
var Names = []string{"gfuzz", "gopie", "flow", "prefix"}

// New returns the named strategy with default parameters; seed makes its random choices
// reproducible.
func New(name string, seed uint64) (Strategy, error) {
	switch name {
	case "gfuzz":
		return NewGFuzz(seed), nil
	case "gopie":
		return NewGoPie(seed), nil
	case "flow":
		return NewFlow(), nil
	case "prefix":
		return NewPrefix(seed, nil), nil
	}
	return nil, fmt.Errorf("unknown mutation strategy %q (known: %v)", name, Names)
}
