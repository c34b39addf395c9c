package analysis

import "github.com/goweave/goweave/analysis/trace"

// Timers (FORMAT.md): a user goroutine sets a timer (creates it: the make of its channel
// inside NewTimer, NewTicker or After, or a TimerSet for AfterFunc; or resets it: a
// TimerSet); the runtime fires it, delivering a value on
// its channel (TimerFire) or starting the AfterFunc's function in a goroutine (a GoSpawn of
// no goroutine with the timer as its object). A fire is no goroutine's operation: it knows
// what every set before it knew, and passes that on.
//
// Rule TimerSet, and ChanMake of a timer's channel (which stands for the creation of a
// channel timer): the setter's clocks join the timer's.
// Rule TimerFire: the timer's clocks then are kept for the receive that gets the fired
// value (the one with the fire's seq), which joins them: set -> fire -> receive. A timer's
// channel has room for one value, so the fire of value k+1 comes after the receive of value
// k (or after Stop or Reset discarded it): one kept fire per timer is enough.
// Rule GoSpawn by a timer: the AfterFunc goroutine starts with the timer's clocks.

// timerState is the engine's state of one timer.
type timerState struct {
	vc, wvc         vclock // what the sets so far knew
	fireVC, fireWVC vclock // the timer's clocks at its latest fire
	fireSeq         uint64 // that fire's seq (0: none)
}

// timerOf returns the state of timer obj, creating it.
func (e *engine) timerOf(obj uint64) *timerState {
	if e.timers == nil {
		e.timers = map[uint64]*timerState{}
	}
	ts := e.timers[obj]
	if ts == nil {
		ts = &timerState{vc: e.ck.clock(-1), wvc: e.ck.clock(-1), fireVC: e.ck.clock(-1), fireWVC: e.ck.clock(-1)}
		e.timers[obj] = ts
	}
	return ts
}

// timerSet is the rule of TimerSet.
func (e *engine) timerSet(i int32, ev *trace.Event) {
	g := e.tick(i)
	if ev.Obj != 0 {
		e.setTimer(g, ev.Obj)
	}
}

// chanMake is the rule of ChanMake: a tick; the make of a timer's channel (one with fires)
// is the timer's creation.
func (e *engine) chanMake(i int32, ev *trace.Event) {
	g := e.tick(i)
	if x := e.objOf[i]; x >= 0 && e.chans[x].fires != nil {
		e.setTimer(g, ev.Obj)
	}
}

// setTimer joins goroutine g's clocks into timer obj's.
func (e *engine) setTimer(g int32, obj uint64) {
	ts := e.timerOf(obj)
	e.ck.join(&ts.vc, &e.vc[g])
	e.ck.join(&ts.wvc, &e.wvc[g])
}

// timerEvent processes an event of no goroutine: a timer's fire, or the start of an
// AfterFunc's goroutine.
func (e *engine) timerEvent(i int32, ev *trace.Event) {
	if ev.Obj == 0 || (ev.Kind != trace.KindTimerFire && ev.Kind != trace.KindGoSpawn) {
		return
	}
	ts := e.timers[ev.Obj]
	if ts == nil {
		return // no set recorded: the fire orders nothing
	}
	switch ev.Kind {
	case trace.KindTimerFire:
		e.ck.assign(&ts.fireVC, &ts.vc)
		e.ck.assign(&ts.fireWVC, &ts.wvc)
		ts.fireSeq = ev.A
	case trace.KindGoSpawn:
		c, ok := e.r.gIndex[ev.A]
		if !ok || e.running(c) {
			return
		}
		e.newClocks(c)
		e.ck.join(&e.vc[c], &ts.vc)
		e.ck.join(&e.wvc[c], &ts.wvc)
	}
}

// countFire registers fire i with sequence number seq (prepass).
func (c *chanState) countFire(seq uint64, i int32) {
	if seq == 0 || seq > 1<<31 || int(seq) > len(c.fires)+1<<20 {
		return
	}
	for len(c.fires) < int(seq) {
		c.fires = appendDoubling(c.fires, -1)
	}
	c.fires[seq-1] = i
}

// timerRecv lets receive seq of goroutine g on timer channel ch, when the timer's latest
// fire delivered its value, happen after what the timer knew then.
func (e *engine) timerRecv(g int32, ch *chanState, seq uint64) {
	ts := e.timers[ch.obj]
	if ts == nil || seq == 0 || ts.fireSeq != seq {
		return
	}
	e.ck.join(&e.vc[g], &ts.fireVC)
	e.ck.join(&e.wvc[g], &ts.fireWVC)
}
