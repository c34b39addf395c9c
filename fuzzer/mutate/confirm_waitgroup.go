package mutate

import (
	"time"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// addWaitChains: [wait, add] for an Add from a zero counter (the claim's primary position,
// a predicted data-race of rule WgAddWait) and a Wait of the same WaitGroup in another
// goroutine (role "wait") that the Add need not precede: the Wait is admitted first, so it
// returns (or blocks) without the Add's work counted, and the Add comes after it unordered.
func addWaitChains(r *Run, c Claim) [][]int {
	adds := at(r, c, "", func(e *trace.Event) bool { return e.Kind == trace.KindWgAdd && int64(e.A) > 0 })
	waits := at(r, c, roleOf(c, 1, "wait"), func(e *trace.Event) bool { return e.Kind == trace.KindWgWait })
	return addNeedNotPrecede(r, waits, adds, true) // confirm.go
}

// addWaitHold bounds how long a confirmation holds an Add for its Wait, which may come only
// after the test's own sleeps.
const addWaitHold = 2 * time.Second

// addWaitDelays: for each chain [wait, add], a schedule that holds only the Add until the
// Wait is admitted, the rest of the run free. It is tried before the chain's order: the
// order replays every operation that must precede the Wait, and when the Add's goroutine
// is held, operations of the others change (cancel closes the channel ctx.Done() would
// have made), so the order diverges where the hold alone does not.
func addWaitDelays(r *Run, chains [][]int) []Rewrite {
	var out []Rewrite
	seen := map[[2]schedule.OpID]bool{}
	for _, ch := range chains {
		wait, add := r.Names.Ops[ch[0]], r.Names.Ops[ch[1]]
		if seen[[2]schedule.OpID{wait, add}] || len(out) == maxRewrites {
			continue
		}
		seen[[2]schedule.OpID{wait, add}] = true
		s := &schedule.Schedule{Delays: []schedule.Delay{{Op: add, Until: wait, Window: addWaitHold}}}
		out = append(out, Rewrite{Schedule: s, Chain: ch, Note: "data-race: " + shortOp(add) + " held until " + shortOp(wait)})
	}
	return out
}
