package mutate

import "github.com/goweave/goweave/analysis/trace"

// addWaitChains: [wait, add] for an Add from a zero counter (the claim's primary position,
// a predicted data-race of rule WgAddWait) and a Wait of the same WaitGroup in another
// goroutine (role "wait") that the Add need not precede: the Wait is admitted first, so it
// returns (or blocks) without the Add's work counted, and the Add comes after it unordered.
func addWaitChains(r *Run, c Claim) [][]int {
	adds := at(r, c, "", func(e *trace.Event) bool { return e.Kind == trace.KindWgAdd && int64(e.A) > 0 })
	waits := at(r, c, roleOf(c, 1, "wait"), func(e *trace.Event) bool { return e.Kind == trace.KindWgWait })
	var out [][]int
	for _, a := range adds {
		for _, w := range waits {
			ea, ew := &r.Trace.Events[a], &r.Trace.Events[w]
			if ea.Obj == ew.Obj && ea.G != ew.G && !r.HB.HappensBefore(a, w) {
				out = append(out, []int{w, a})
			}
		}
	}
	return out
}
