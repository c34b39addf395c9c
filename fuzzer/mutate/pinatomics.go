package mutate

import (
	"cmp"
	"slices"

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

// PinAtomics makes s, the schedule of the steered run r, replay r's interleaving of atomic
// operations: s's order (if any) becomes the recorded order of every schedulable operation
// and every atomic of r up to r's last atomic on a word another goroutine also accessed
// atomically, and at least up to the last of s's own ops that r performed (s's ops r
// admitted but never completed follow, in s's order). Delays of operations that order
// names are dropped (the order places them as recorded); selects among them take their
// recorded case where s has no preference for their statement. After the order the run is
// free, under s's remaining delays and preferences, as r was.
//
// It reports false, leaving s unchanged, when r has no such atomic, its trace lost events
// (an order would wait for operations it does not list), or the order would exceed
// maxPinnedOps.
func PinAtomics(s *schedule.Schedule, r *Run) bool {
	r.Prepare()
	if incomplete(r) {
		return false
	}
	shared := sharedAtomics(r)
	last := -1
	for k, e := range r.linPin {
		if shared[e] {
			last = k
		}
	}
	if last < 0 {
		return false
	}
	var pending []int // s's ops r performed without completing them
	window := DefaultOrderWindow
	if s.Order != nil {
		window = s.Order.Window
		for _, op := range s.Order.Ops {
			i, ok := r.Names.Event(op)
			switch {
			case !ok:
			case r.pinRank[i] >= 0:
				last = max(last, r.pinRank[i])
			case !r.Trace.Events[i].Completed():
				pending = append(pending, i)
			}
		}
	}
	events := append(slices.Clone(r.linPin[:last+1]), pending...)
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
