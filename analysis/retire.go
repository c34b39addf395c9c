package analysis

import (
	"slices"

	"github.com/goweave/goweave/analysis/trace"
)

// Clocks kept for a reader that will never come are released as soon as the walk knows it:
// the prepass sees every event, so it knows which operations will read a published clock.
// On a pool's suite (tens of thousands of short workers, each with its own task channel,
// woken through one sync.Cond) the clocks of every Signal that woke a waiter and of every
// channel whose workers had ended were kept to the end, and held most of the clock memory:
// ants' TestRestCodeCoverage, 2.9M events of 60,018 goroutines, passed the 1 GB budget.

// retirePlan finds, once the walk's order is known, each channel's last completed operation
// in that order: after it no operation reads the clocks its buffer slots keep (only
// completed sends and receives read them; a blocked one never does).
func (e *engine) retirePlan(ord []int32) {
	e.chanLast = make([]int32, len(e.chans))
	for x := range e.chanLast {
		e.chanLast[x] = -1
	}
	evs := e.t.Events
	for _, i := range ord {
		if x := e.objOf[i]; x >= 0 && objClass(evs[i].Kind) == classChan {
			e.chanLast[x] = i
		}
	}
}

// retireAfter releases what event i (just walked) was the last to read.
func (e *engine) retireAfter(i int32) {
	x := e.objOf[i]
	if x < 0 || e.chanLast == nil || objClass(e.t.Events[i].Kind) != classChan || e.chanLast[x] != i {
		return
	}
	ch := &e.chans[x]
	for _, ring := range [][]published{ch.ringS, ch.ringR} {
		for k := range ring {
			e.ck.drop(&ring[k].vc, -1)
			e.ck.drop(&ring[k].wvc, -1)
		}
	}
	for _, p := range ch.stashS {
		e.ck.drop(&p.vc, -1)
		e.ck.drop(&p.wvc, -1)
	}
	ch.ringS, ch.ringR, ch.stashS = nil, nil, nil
}

// condWaitTicket notes (prepass) the ticket of a completed Wait on cond x: the wake that
// covers it will be read once.
func (e *engine) condWaitTicket(x int32, ev *trace.Event) {
	if ev.Post == 0 {
		return
	}
	for int(x) >= len(e.condWaits) {
		e.condWaits = append(e.condWaits, nil)
	}
	e.condWaits[x] = append(e.condWaits[x], ev.A)
}

// sortCondWaits orders each cond's tickets for wakeReaders' searches (after the prepass).
func (e *engine) sortCondWaits() {
	for _, w := range e.condWaits {
		slices.Sort(w)
	}
}

// wakeReaders returns how many completed Waits on cond x hold a ticket in [lo, hi): the
// number of times the wake of those tickets will be joined.
func (e *engine) wakeReaders(x int32, lo, hi uint64) int32 {
	if int(x) >= len(e.condWaits) {
		return 0
	}
	w := e.condWaits[x]
	a, _ := slices.BinarySearch(w, lo)
	b, _ := slices.BinarySearch(w, hi)
	return int32(b - a)
}

// wakeRead counts one join of wake w; after its last reader its clocks are released.
func (e *engine) wakeRead(w *condWake) {
	if w.readers--; w.readers == 0 {
		e.ck.drop(&w.vc, -1)
		e.ck.drop(&w.wvc, -1)
	}
}
