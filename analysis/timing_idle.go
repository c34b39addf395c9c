package analysis

import (
	"slices"

	"github.com/goweave/goweave/analysis/trace"
)

// A hold of an idle select. goweave's schedule parks a select for its preferred case, or for
// a preference's whole window, whether or not anything could have completed it: the worker
// of an earlier round of a test's loop, idle in its select on channels the test no longer
// uses, is "held" across every later sleep of the test (ccache's worker per Cache, one per
// round of Test_ConcurrentClearAndSetBench). A select that never completed, none of whose
// cases was ready when it looked, and on whose channels no other goroutine operated
// afterwards would have waited just as long unheld: the hold delayed nothing, and is no
// evidence that a wait expired before it.

// waitsAnyway reports whether event i (-1: none) is such a select.
func (r *timingRelation) waitsAnyway(i int) bool {
	if i < 0 {
		return false
	}
	if v, ok := r.anyway[i]; ok {
		return v
	}
	if r.anyway == nil {
		r.anyway = map[int]bool{}
	}
	v := r.idleSelect(i)
	r.anyway[i] = v
	return v
}

func (r *timingRelation) idleSelect(i int) bool {
	e := &r.tr.Events[i]
	if e.Kind != trace.KindSelect || e.Completed() || len(e.Cases) == 0 {
		return false
	}
	chans := map[uint64]bool{}
	for _, c := range e.Cases {
		if c.Ready {
			return false
		}
		if c.Obj != 0 {
			chans[c.Obj] = true
		}
	}
	for j := range r.tr.Events {
		if o := &r.tr.Events[j]; o.G != e.G && o.Pre > e.Pre && slices.ContainsFunc(eventObjects(o), func(c uint64) bool { return chans[c] }) {
			return false
		}
	}
	return true
}
