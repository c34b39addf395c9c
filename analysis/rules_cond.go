package analysis

import (
	"cmp"
	"slices"

	"github.com/goweave/goweave/analysis/trace"
)

// condState is the engine's state of one sync.Cond.
type condState struct {
	obj   uint64
	wakes []condWake
	last  int32 // latest Signal/Broadcast
	// unsorted: some wake does not start at or after the previous one's end (the runtime's
	// tickets only grow, so only a damaged trace): the wakes are searched one by one, not
	// by bisection
	unsorted bool
	lastHi   uint64 // hi of the latest wake of a waiter
}

type condWake struct {
	lo, hi  uint64 // tickets woken: [lo, hi)
	vc, wvc vclock
	readers int32 // completed Waits not yet joined with it (retire.go)
}

// Rule CondSignal / CondBroadcast: the signaller's clock is kept for the tickets it woke
// (Signal: ticket a; Broadcast: tickets a..b-1). Waking nobody synchronizes nothing.
func (e *engine) condSignal(i int32, ev *trace.Event) {
	g := e.tick(i)
	x := e.objOf[i]
	if x < 0 {
		return
	}
	c := &e.conds[x]
	c.last = i
	if ev.A >= ev.B {
		return
	}
	hi := ev.A + 1
	if ev.Kind == trace.KindCondBroadcast {
		hi = ev.B
	}
	if c.lastHi > 0 && ev.A < c.lastHi {
		c.unsorted = true
	}
	c.lastHi = hi
	// a wake no completed Wait will join is not kept: its tickets' waiters never returned
	n := e.wakeReaders(x, ev.A, hi)
	if n == 0 {
		return
	}
	c.wakes = append(c.wakes, condWake{lo: ev.A, hi: hi, vc: e.snapshot(&e.vc[g]), wvc: e.snapshot(&e.wvc[g]), readers: n})
}

// Rule CondWait: a Wait that returned happens after the Signal or Broadcast that woke its
// ticket (the Unlock/Lock of L inside Wait are recorded as their own events).
func (e *engine) condWait(i int32, ev *trace.Event) {
	g := e.tick(i)
	x := e.objOf[i]
	if x < 0 {
		return
	}
	c := &e.conds[x]
	if !c.unsorted {
		// disjoint ranges in ticket order: the last that starts at or before the ticket
		k, _ := slices.BinarySearchFunc(c.wakes, ev.A+1, func(w condWake, t uint64) int { return cmp.Compare(w.lo, t) })
		if k--; k >= 0 && ev.A < c.wakes[k].hi {
			e.ck.join(&e.vc[g], &c.wakes[k].vc)
			e.ck.join(&e.wvc[g], &c.wakes[k].wvc)
			e.wakeRead(&c.wakes[k])
		}
		return
	}
	for k := len(c.wakes) - 1; k >= 0; k-- {
		if w := &c.wakes[k]; w.lo <= ev.A && ev.A < w.hi {
			e.ck.join(&e.vc[g], &w.vc)
			e.ck.join(&e.wvc[g], &w.wvc)
			e.wakeRead(w)
			return
		}
	}
}
