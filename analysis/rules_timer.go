package analysis

import "github.com/goweave/goweave/analysis/trace"

// Timer fires (TimerFire, FORMAT.md): the runtime delivering a value on a timer's or
// ticker's channel. A fire is no goroutine's operation (its g is 0: the engine's walk
// skips it), so it orders only what the timer itself knew: what happened before the timer
// was set. The set recorded is the make of the timer's channel (inside NewTimer,
// NewTicker or After, on the goroutine that called it); a Reset by another goroutine is not
// recorded, so its edge is missing (never a false one).
//
// Rule TimerFire: set -> fire -> receive. The make of a channel that has fires publishes
// the maker's clocks as the timer's; a receive that gets a value a fire delivered (the
// fire with its seq) joins them.

// chanMake is the rule of ChanMake: a tick, and the timer's clocks for a timer's channel.
func (e *engine) chanMake(i int32, ev *trace.Event) {
	g := e.tick(i)
	if x := e.objOf[i]; x >= 0 && e.chans[x].fires != nil {
		ch := &e.chans[x]
		e.ck.publish(&ch.timerSet, &e.vc[g], &e.wvc[g])
	}
}

// countFire registers fire i with sequence number seq (prepass).
func (c *chanState) countFire(seq uint64, i int32) {
	if seq == 0 || seq > 1<<31 || int(seq) > len(c.fires)+1<<20 {
		return
	}
	c.timerSet.weak = true
	for len(c.fires) < int(seq) {
		c.fires = appendDoubling(c.fires, -1)
	}
	c.fires[seq-1] = i
}

// timerRecv lets receive seq of goroutine g on channel ch, when a fire delivered its value,
// happen after the timer's set.
func (e *engine) timerRecv(g int32, ch *chanState, seq uint64) {
	if bySeq(ch.fires, seq) >= 0 {
		e.acquire1(g, &ch.timerSet)
	}
}
