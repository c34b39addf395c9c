package mutate

import (
	"cmp"
	"slices"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// An order holds back the orderable operations (channels, selects, locks, ...); atomics pass
// it unless it names one (FORMAT.md). A failure whose window lies between atomic operations
// of two goroutines (zerolog's diode writer: the reader's empty Swap, then the writer's Add
// and CompareAndSwap, then the reader's look at the cancelled context) reproduces under the
// schedule of the run that found it only when the goroutines happen to interleave those
// atomics as they did: the recipe has to pin them.

// maxPinnedOps bounds the order PinAtomics writes: a run that spins on an atomic a million
// times is not worth replaying one admission at a time.
const maxPinnedOps = 1 << 16

// sharedAtomics returns the events of r that are atomic operations, with a logical
// goroutine, on a word that atomics of at least two goroutines accessed: the atomics whose
// interleaving a run depends on. Atomics of one goroutine alone order nothing.
func sharedAtomics(r *Run) map[int]bool {
	byWord := map[uint64][]int{}
	for i := range r.Trace.Events {
		e := &r.Trace.Events[i]
		if schedule.Atomic(e.Kind) && e.Completed() && r.Names.Pinnable(i) {
			byWord[e.A] = append(byWord[e.A], i)
		}
	}
	out := map[int]bool{}
	for _, evs := range byWord {
		g := r.Trace.Events[evs[0]].G
		if !slices.ContainsFunc(evs, func(i int) bool { return r.Trace.Events[i].G != g }) {
			continue
		}
		for _, i := range evs {
			out[i] = true
		}
	}
	return out
}

// PinAtomics makes s, the schedule of the steered run r, replay r when r's goroutines shared
// atomics: s's order (if any) becomes the recorded order of every schedulable operation and
// every atomic of r (pinStamps: a channel operation that blocked at its request), followed by
// s's ops r admitted but never completed, in s's order. Delays of operations that order
// names are dropped (the order places them as recorded); selects among them take their
// recorded case where s has no preference for their statement.
//
// A prefix up to the last shared atomic is not enough: zerolog's poller must also look at
// the context after the test goroutine cancelled it, a library's close that no order can
// name; only the test goroutine's next operation, in the recorded order, places it.
//
// It reports false, leaving s unchanged, when no two goroutines of r accessed a word
// atomically, its trace lost events (an order would wait for operations it does not list),
// or the order would exceed maxPinnedOps.
func PinAtomics(s *schedule.Schedule, r *Run) bool {
	r.Prepare()
	if incomplete(r) || len(sharedAtomics(r)) == 0 {
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
// it took effect (effectStamp), except a channel send or receive that blocked until a
// partner of another goroutine came (a receive woken by a send, a close or a timer; a send by
// a receive): that one at its request. Ordered by its completion, a blocked receive is
// admitted after its partner, which tells the order nothing about where its goroutine was:
// zerolog's test goroutine had cancelled the context before it waited for the poller, and
// the poller's look at the context came after that wait began, not after it ended. Admitted
// at its request, it blocks as it did and its partner's admission wakes it: channels queue
// their waiters in order, so the outcome is the recorded one.
func pinStamps(t *trace.Trace) []uint64 {
	byObj := map[uint64][]int{}
	for i := range t.Events {
		if o := object(&t.Events[i]); o != 0 {
			byObj[o] = append(byObj[o], i)
		}
	}
	stamps := make([]uint64, len(t.Events))
	for i := range t.Events {
		e := &t.Events[i]
		stamps[i] = effectStamp(e)
		if (e.Kind == trace.KindChanRecv || e.Kind == trace.KindChanSend) && e.Completed() &&
			slices.ContainsFunc(byObj[e.Obj], func(j int) bool { return wokeBy(e, &t.Events[j]) }) {
			stamps[i] = e.Pre
		}
	}
	return stamps
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
