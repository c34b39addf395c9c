package campaign

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace"
)

// What a flaky panic or failure's run did in another order than a passing run of the same
// test: for each object (channel, mutex, WaitGroup, ...), the source lines that operated on
// it in the order they first did. Two lines on one object in one order when the test passed
// and in the other when it failed are the order the failure depends on; they become related
// positions of the flaky finding. Objects are named by address, which differs between runs,
// so the comparison is by lines: a pair of lines that share an object in both runs.

// receiveSide marks a channel's receiving side (object ids are addresses, below it).
const receiveSide = 1 << 62

// maxOrderLines bounds the lines kept per object, and so the work per run.
const maxOrderLines = 32

// lineOrder is, per object of a run, its lines in first-operation order.
type lineOrder [][]analysis.Position

// orderOf summarizes the trace of a run.
func orderOf(tr *trace.Trace) lineOrder {
	if tr == nil {
		return nil
	}
	index := map[uint64]int{}
	var out lineOrder
	seen := map[uint64]map[string]bool{}
	for i := range tr.Events {
		ev := &tr.Events[i]
		if ev.Obj == 0 || ev.Kind == trace.KindGoSpawn || ev.Kind == trace.KindGoEnd || ev.Kind == trace.KindChanMake {
			continue
		}
		p := tr.Position(ev.Pos)
		if p.File == "" {
			continue
		}
		obj := ev.Obj
		if ev.Kind == trace.KindChanRecv {
			// a channel's receiving side is an object of its own: which side of a send and
			// a receive came first is no order the program saw (analysis.receiveSide)
			obj |= receiveSide
		}
		k, ok := index[obj]
		if !ok {
			k = len(out)
			index[obj] = k
			out = append(out, nil)
			seen[obj] = map[string]bool{}
		}
		key := fmt.Sprintf("%s:%d", p.File, p.Line)
		if seen[obj][key] || len(out[k]) >= maxOrderLines {
			continue
		}
		seen[obj][key] = true
		out[k] = append(out[k], analysis.Position{File: p.File, Line: p.Line, Column: analysis.LineColumn(p.File, p.Line)})
	}
	return out
}

// noteOrderDifferences adds to a new flaky panic or failure of run ar the order differences
// with the test's first passing run, as related positions.
func (t *testState) noteOrderDifferences(f *Finding, ar *AnalyzedRun) {
	if (f.Kind != "flaky-panic" && f.Kind != "flaky-failure") || t.passingOrder == nil || ar.Recorded == nil {
		return
	}
	f.Positions = append(f.Positions, orderDifferences(orderOf(ar.Recorded), t.passingOrder, 2)...)
}

// lineKey names a line across runs.
func lineKey(p analysis.Position) string { return fmt.Sprintf("%s:%d", p.File, p.Line) }

// orderDifferences returns at most max pairs (one per line of the failing run) of lines that one object saw in one order in
// the passing run and in the other in the failing run, or of which the failing run reached
// only the second (the first had not run yet when it failed): the two positions, with roles
// saying so, the failing run's first line first.
func orderDifferences(failing, passing lineOrder, max int) []analysis.Position {
	// for each line, the lines before it on one of its objects when the test passed
	passedBefore := map[string][]analysis.Position{}
	for _, lines := range passing {
		for i, b := range lines {
			passedBefore[lineKey(b)] = append(passedBefore[lineKey(b)], lines[:i]...)
		}
	}
	var out []analysis.Position
	done := map[[2]string]bool{}
	for _, lines := range failing {
		at := map[string]int{}
		for i, p := range lines {
			at[lineKey(p)] = i
		}
		for i, b := range lines {
			for _, a := range passedBefore[lineKey(b)] {
				j, ran := at[lineKey(a)]
				pair := [2]string{lineKey(a), lineKey(b)}
				if (ran && j < i) || done[pair] || len(out) >= 2*max {
					continue
				}
				done[pair] = true
				first := b
				first.Role = fmt.Sprintf("ran before %s:%d here; after it when the test passed", filepath.Base(a.File), a.Line)
				then := a
				then.Role = fmt.Sprintf("had not run yet here; ran before %s:%d when the test passed", filepath.Base(b.File), b.Line)
				if ran {
					then.Role = fmt.Sprintf("ran after %s:%d here; before it when the test passed", filepath.Base(b.File), b.Line)
				}
				out = append(out, first, then)
				break // the earliest line it overtook says enough
			}
		}
	}
	return out
}

// isOrderDifference reports whether role is one orderDifferences gives.
func isOrderDifference(role string) bool {
	return strings.Contains(role, " when the test passed") &&
		(strings.HasPrefix(role, "ran before ") || strings.HasPrefix(role, "ran after ") || strings.HasPrefix(role, "had not run yet here"))
}
