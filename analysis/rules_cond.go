package analysis

import "github.com/goweave/goweave/analysis/trace"

// condState is the engine's state of one sync.Cond.
type condState struct {
	obj   uint64
	wakes []condWake
	last  int32 // latest Signal/Broadcast
}

type condWake struct {
	lo, hi  uint64 // tickets woken: [lo, hi)
	vc, wvc vclock
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
	c.wakes = append(c.wakes, condWake{lo: ev.A, hi: hi, vc: e.snapshot(&e.vc[g]), wvc: e.snapshot(&e.wvc[g])})
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
	for k := len(c.wakes) - 1; k >= 0; k-- {
		if w := c.wakes[k]; w.lo <= ev.A && ev.A < w.hi {
			e.ck.join(&e.vc[g], &w.vc)
			e.ck.join(&e.wvc[g], &w.wvc)
			return
		}
	}
}
