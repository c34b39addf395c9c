package analysis

import (
	"slices"

	"github.com/goweave/goweave/analysis/trace"
)

// A hold of an idle select. goweave's schedule parks a select for its preferred case, or for
// a preference's whole window, whether or not anything could have completed it: the worker
// of an earlier round of a test's loop, idle in its select on channels the test no longer
// uses, is "held" across every later sleep of the test (ccache's worker per Cache, one per
// round of Test_ConcurrentClearAndSetBench). A select that never completed, none of whose
// cases was ready when it looked, and on whose channels no other goroutine operated
// afterwards would have waited just as long unheld: the hold delayed nothing, and is no
// evidence that a wait expired before it. Not a select on a timer's or ticker's channel, nor
// any while a function timer (a context's deadline) had not fired: the clock makes those
// ready with nothing recorded.

// waitsAnyway reports whether event i (-1: none) is such a select.
func (r *timingRelation) waitsAnyway(i int) bool {
	if i < 0 {
		return false
	}
	if v, ok := r.anyway[i]; ok {
		return v
	}
	if r.anyway == nil {
		r.anyway = map[int]bool{}
	}
	v := r.idleSelect(i)
	r.anyway[i] = v
	return v
}

func (r *timingRelation) idleSelect(i int) bool {
	e := &r.tr.Events[i]
	if e.Kind != trace.KindSelect || e.Completed() || len(e.Cases) == 0 {
		return false
	}
	if !r.clocksKnown {
		r.clocksKnown, r.clockChans = true, r.clockChannels()
	}
	clocks := r.clockChans
	if clocks == nil {
		return false // a function timer that had not fired may close any channel (a context's deadline)
	}
	chans := map[uint64]bool{}
	for _, c := range e.Cases {
		if c.Ready || clocks[c.Obj] {
			return false // ready, or waiting for the clock (a timer's or ticker's channel)
		}
		if c.Obj != 0 {
			chans[c.Obj] = true
		}
	}
	for j := range r.tr.Events {
		if o := &r.tr.Events[j]; o.G != e.G && o.Pre > e.Pre && slices.ContainsFunc(eventObjects(o), func(c uint64) bool { return chans[c] }) {
			return false
		}
	}
	return true
}

// clockChannels are the channels of the trace's channel timers and tickers, which the clock
// makes ready with no operation of any goroutine recorded (a timer that fires for a goroutine
// the schedule parked outside its select sends nothing); nil when a function timer never
// fired (it may close any channel: a context's deadline).
func (r *timingRelation) clockChannels() map[uint64]bool {
	fired := map[uint64]bool{}
	for i := range r.tr.Events {
		if e := &r.tr.Events[i]; e.Kind == trace.KindGoSpawn && e.G == 0 && e.Obj != 0 {
			fired[e.Obj] = true
		}
	}
	out := map[uint64]bool{}
	for _, t := range r.tr.Timed {
		if t.Kind != trace.KindTimedWait {
			continue
		}
		switch t.Aux {
		case trace.WaitTimerChan, trace.WaitTicker:
			out[t.Obj] = true
		case trace.WaitTimerFunc:
			if !fired[t.Obj] {
				return nil
			}
		}
	}
	for i := range r.tr.Events {
		if e := &r.tr.Events[i]; e.Kind == trace.KindTimerFire || e.Kind == trace.KindTimerSet {
			out[e.Obj] = true
		}
	}
	return out
}
