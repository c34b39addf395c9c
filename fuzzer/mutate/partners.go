package mutate

import (
	"github.com/goweave/goweave/analysis/trace"
)

// PossiblePartners computes, for every Select event of t, the case indexes (as the trace records them) of its
// non-chosen cases that another schedule could have taken: a case on channel c has a possible
// partner if an operation on c of the opposite direction in another goroutine is concurrent
// with the select or happens after it (only operations that happen before the select are
// ruled out), or, for a receive case, if c is closed anywhere in the run (a closed channel
// is always ready). Nil channels never communicate.
func PossiblePartners(t *trace.Trace, hb HB) map[int][]int {
	byObj := make(map[uint64][]int)
	for i := range t.Events {
		if o := object(&t.Events[i]); o != 0 {
			byObj[o] = append(byObj[o], i)
		}
	}
	out := make(map[int][]int)
	for s := range t.Events {
		sel := &t.Events[s]
		if sel.Kind != trace.KindSelect {
			continue
		}
		var cases []int
		for _, c := range sel.Cases {
			if c.Obj == 0 || (sel.Completed() && uint64(c.Index) == sel.A) {
				continue
			}
			if hasPartner(t, hb, s, c, byObj[c.Obj]) {
				cases = append(cases, c.Index)
			}
		}
		out[s] = cases
	}
	return out
}

func hasPartner(t *trace.Trace, hb HB, s int, c trace.Case, ops []int) bool {
	want := 1 // a receive case needs a sender
	if c.Send {
		want = -1
	}
	for _, i := range ops {
		e := &t.Events[i]
		if i == s || e.G == t.Events[s].G {
			continue
		}
		if !c.Send && e.Kind == trace.KindChanClose && !e.Flags.Has(trace.FlagClosed) {
			return true
		}
		if chanDir(e) == want && !hb.HappensBefore(i, s) {
			return true
		}
	}
	return false
}
