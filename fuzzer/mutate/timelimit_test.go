package mutate

import (
	"testing"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// heartbeatRun is a run stopped at its time limit (META timelimit=1) in which goroutines 3
// and 4 take turns on mutex 7 from start to end, as a heartbeat goroutine would next to a
// hung test: 40 operations, spread over the whole run.
func heartbeatRun(timeLimit bool) *Run {
	b := newBuilder()
	b.spawn(2, 3, 5)
	b.spawn(2, 4, 6)
	prevUnlock := -1
	for k := range 20 {
		g := uint64(3 + k%2)
		l := b.op(g, trace.KindLock, 7, uint32(10+10*(g-3)))
		if prevUnlock >= 0 {
			b.hb(prevUnlock, l)
		}
		prevUnlock = b.op(g, trace.KindUnlock, 7, uint32(11+10*(g-3)))
	}
	if timeLimit {
		b.t.Meta["timelimit"] = "1"
	}
	return b.run()
}

// latestOp returns the largest request stamp among the operations of the orders proposed.
func latestOp(r *Run, ms []Mutation) (latest uint64, orders int) {
	byOp := map[schedule.OpID]int{}
	for i := range r.Trace.Events {
		if r.Names.Schedulable(i) {
			byOp[r.Names.Ops[i]] = i
		}
	}
	for _, m := range ms {
		if m.Schedule.Order == nil {
			continue
		}
		orders++
		for _, op := range m.Schedule.Order.Ops {
			latest = max(latest, r.Trace.Events[byOp[op]].Pre)
		}
	}
	return latest, orders
}

// An order replaying the end of a run stopped at its time limit would hold every other
// goroutine until about the time limit (TestFuzzCommandExplainsHangs under load: the lock
// cycle not reached in the steered run): GoPie proposes orders of its first third only, and
// orders over the whole run of a run that ended by itself.
func TestOrdersOfATimeLimitedRunEndInItsFirstThird(t *testing.T) {
	next := func(r *Run) []Mutation {
		g := NewGoPie(1)
		g.MaxChains, g.MaxMutations = 100, 1000
		return g.Next(r)
	}
	free := heartbeatRun(false)
	free.Prepare()
	evs := free.Trace.Events
	end := evs[0].Pre + (evs[len(evs)-1].Pre-evs[0].Pre)/3
	if latest, _ := latestOp(free, next(free)); latest <= end {
		t.Fatalf("a run that ended by itself: orders end at stamp %d, want some past its first third (stamp %d; the test shows nothing)", latest, end)
	}
	limited := heartbeatRun(true)
	limited.Prepare()
	latest, orders := latestOp(limited, next(limited))
	if orders == 0 || latest > end {
		t.Errorf("a run stopped at its time limit: %d orders ending at stamp %d, want some, all within its first third (stamp %d)", orders, latest, end)
	}
}
