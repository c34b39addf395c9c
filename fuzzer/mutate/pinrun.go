package mutate

import (
	"cmp"
	"slices"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// maxPinnedOps bounds the order PinRun writes: a run that spins on an atomic a million
// times is not worth replaying one admission at a time.
const maxPinnedOps = 1 << 16

// PinRun makes s, the schedule of the steered run r that found a bug, replay r: s's order
// (if any) becomes the recorded order of every schedulable operation and every atomic of r
// (an order that names atomics holds them: FORMAT.md; pinStamps: a channel operation that
// blocked at its request), followed by s's ops r admitted but never completed, in s's
// order. Delays of operations that order names are dropped (the order places them as
// recorded); selects among them take their recorded case where s has no preference for
// their statement.
//
// s alone pins what its strategy steered and leaves the rest of the run free: a bug whose
// window lies between atomics of two goroutines (zerolog's diode writer: the reader's empty
// Swap, the writer's Add and CompareAndSwap, then the reader's look at the cancelled context)
// or after the steered part (emitter's waiter closing done before the caller) then happens
// only when the goroutines interleave as they did by chance.
//
// It reports false, leaving s unchanged, when r's trace lost events (an order would wait for
// operations it does not list) or the order would exceed maxPinnedOps.
func PinRun(s *schedule.Schedule, r *Run) bool {
	r.Prepare()
	if incomplete(r) {
		return false
	}
	var pending []int // s's ops r performed without completing them
	window := DefaultOrderWindow
	if s.Order != nil {
		window = s.Order.Window
		for _, op := range s.Order.Ops {
			if i, ok := r.Names.Event(op); ok && r.pinRank[i] < 0 && !r.Trace.Events[i].Completed() {
				pending = append(pending, i)
			}
		}
	}
	events := append(slices.Clone(r.linPin), pending...)
	if len(events) > maxPinnedOps {
		return false
	}
	ordered := map[schedule.OpID]bool{}
	o := &schedule.Order{Window: window, Ops: make([]schedule.OpID, len(events))}
	for k, e := range events {
		o.Ops[k] = r.Names.Ops[e]
		ordered[o.Ops[k]] = true
	}
	s.Order = o
	s.Delays = slices.DeleteFunc(s.Delays, func(d schedule.Delay) bool { return ordered[d.Op] })
	have := map[schedule.Pos]bool{}
	for _, p := range s.Selects {
		have[p.Pos] = true
	}
	for _, p := range selectPreferences(r, events, nil, DefaultSelectWindow) {
		if !have[p.Pos] {
			s.Selects = append(s.Selects, p)
		}
	}
	slices.SortFunc(s.Selects, func(a, b schedule.SelectPreference) int {
		return cmp.Or(cmp.Compare(a.Pos.File, b.Pos.File), cmp.Compare(a.Pos.Line, b.Pos.Line))
	})
	return true
}

// pinStamps returns, for each event of r, where an order that pins atomics places it: when
// it took effect (keys, from effectKeys), except a channel send or receive that blocked until a
// partner of another goroutine came (a receive woken by a send, a close or a timer; a send by
// a receive): that one at its request. Ordered by its completion, a blocked receive is
// admitted after its partner, which tells the order nothing about where its goroutine was:
// zerolog's test goroutine had cancelled the context before it waited for the poller, and
// the poller's look at the context came after that wait began, not after it ended. Admitted
// at its request, it blocks as it did and its partner's admission wakes it: channels queue
// their waiters in order, so the outcome is the recorded one. Stamps are on keys' scale
// (twice the trace's).
func pinStamps(t *trace.Trace, keys []uint64) []uint64 {
	byObj := map[uint64][]int{}
	for i := range t.Events {
		if o := object(&t.Events[i]); o != 0 {
			byObj[o] = append(byObj[o], i)
		}
	}
	// Each object's events by request stamp: a partner's request lies inside the wait, so a
	// binary search finds the first candidate and the scan ends at the wait's end (scanning
	// every event of the object for each operation took minutes on a channel of 100k).
	for _, evs := range byObj {
		slices.SortFunc(evs, func(a, b int) int { return cmp.Compare(t.Events[a].Pre, t.Events[b].Pre) })
	}
	stamps := make([]uint64, len(t.Events))
	for i := range t.Events {
		e := &t.Events[i]
		stamps[i] = keys[i]
		if (e.Kind != trace.KindChanRecv && e.Kind != trace.KindChanSend) || !e.Completed() {
			continue
		}
		evs := byObj[e.Obj]
		k, _ := slices.BinarySearchFunc(evs, e.Pre+1, func(j int, pre uint64) int { return cmp.Compare(t.Events[j].Pre, pre) })
		for ; k < len(evs) && t.Events[evs[k]].Pre < e.Post; k++ {
			if wokeBy(e, &t.Events[evs[k]]) {
				stamps[i] = 2*e.Pre + 1
				break
			}
		}
	}
	keepChannelOrder(t, byObj, keys, stamps)
	return stamps
}

// keepChannelOrder delays a blocked operation moved to its request behind every operation of
// the same direction on its channel that took effect before it. A request stamp is taken
// before the channel's lock: a worker's send can stamp its request first, lose the lock to
// another worker's send that pairs with the waiting receiver, and block until a later
// receive. Left at its request, the replay admits it first and the receiver takes its value
// instead, in every replay (correct_worker_pool's result channel).
func keepChannelOrder(t *trace.Trace, byObj map[uint64][]int, keys, stamps []uint64) {
	var sends, recvs []int
	for _, evs := range byObj {
		sends, recvs = sends[:0], recvs[:0]
		for _, i := range evs {
			e := &t.Events[i]
			if !e.Completed() {
				continue
			}
			switch chanDir(e) {
			case 1:
				sends = append(sends, i)
			case -1:
				recvs = append(recvs, i)
			}
		}
		for _, same := range [][]int{sends, recvs} {
			slices.SortFunc(same, func(a, b int) int {
				return cmp.Compare(keys[a], keys[b])
			})
			var last uint64
			for k, i := range same {
				if k > 0 && stamps[i] <= last {
					stamps[i] = last + 1
				}
				last = stamps[i]
			}
		}
	}
}

// wokeBy reports whether o, of another goroutine (or a timer), is a partner that may have
// ended e's wait: a send, close or timer fire for a receive, a receive for a send, begun
// while e was pending.
func wokeBy(e, o *trace.Event) bool {
	if o.G == e.G || o.Pre <= e.Pre || o.Pre >= e.Post {
		return false
	}
	d := chanDir(o)
	if e.Kind == trace.KindChanRecv {
		return d == 1 || o.Kind == trace.KindChanClose || o.Kind == trace.KindTimerFire
	}
	return d == -1
}
