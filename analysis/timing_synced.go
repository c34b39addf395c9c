package analysis

import (
	"slices"

	"github.com/goweave/goweave/analysis/trace"
)

// A sleep the test made up for. A test that sleeps "for the worker to catch up" and then
// synchronises with it anyway (ccache's `time.Sleep(time.Millisecond); cache.SyncUpdates()`:
// a control message the worker receives and answers) does not look before the worker is
// done, whatever the clock: when, between the sleep and the failure it then logged, the
// sleeper sent the goroutine the schedule held across the sleep a request that it took at or
// after the held operation, and received its answer, the delay could not have been seen, and
// the hold is no evidence that the sleep expired too early. The failure is then the order's
// (the worker's earlier choices), a bug to report. The same holds for a worker that first ran
// only after the sleep (timing_late.go). Seeing the worker's progress otherwise (a counter
// read after the held operation) is not enough: it shows how far the worker got, and a
// worker due to do more in the sleep's time (ticks of a trigger) did less.
//
// Not when the sleeper, after its sleep and before the failure, told the delayed goroutine
// anything but messages that it saw from the held operation on: a close (a close, a
// context's cancel), an Unlock, an atomic store, a WaitGroup's Add or Done or a Cond's
// signal is how a test stops a goroutine it slept for to get going, and the delay then
// decided what that goroutine did before it answered. Only sleeps: a timer's or deadline's
// expiry is itself a message to the delayed goroutine (a Done channel closed).

// madeUpFor reports whether sleep w's goroutine, between the sleep and the first failure it
// logged after it, had the goroutine of the operation hold h held answer a request it took
// at or after that operation, and told it nothing but messages it saw from that operation on.
func (r *timingRelation) madeUpFor(h trace.Timed, w trace.Timed) bool {
	r.index()
	return r.learnedOf(r.heldEvent(h), w)
}

// learnedOf is madeUpFor of event held (-1: none), the delayed goroutine's operation: the
// held one, or a late goroutine's first (timing_late.go).
func (r *timingRelation) learnedOf(held int, w trace.Timed) bool {
	if held < 0 || w.Aux != trace.WaitSleep || r.tr.Events[held].G == w.G {
		return false
	}
	r.index()
	fail := r.failureAfter(w.G, w.Stamp)
	if fail < 0 {
		return false // no failure the sleeper logged: what it looked at, and when, is unknown
	}
	c := r.clocks()
	if c == nil {
		return false
	}
	d := r.tr.Events[held].G
	from, to := r.tr.Events[held].Pre, r.tr.Events[fail].Pre
	if !r.answered(c, w, d, from, to) {
		return false
	}
	for _, i := range r.byG[w.G] {
		s := &r.tr.Events[i]
		if s.Pre <= w.Stamp || s.Pre >= to || !tells(s.Kind) {
			continue
		}
		for _, j := range r.byG[d] {
			if x := &r.tr.Events[j]; x.Pre >= from && x.Pre < to && c.HappensBefore(i, j) {
				return false // it saw a stop, a release or a store of the sleeper's
			}
		}
	}
	return true
}

// answered reports whether goroutine g of sleep w, after it and before stamp to, sent goroutine
// d a message that d took at or after stamp from (the held operation, or later), and then
// received d's answer (a value or a close d sent after taking it): a request d had to serve
// before g looked, with whatever d was due to do first. Seeing d's work otherwise (an atomic
// counter, a field under a mutex) shows how far d got, not that it got through.
func (r *timingRelation) answered(c *Clocks, w trace.Timed, d uint64, from, to uint64) bool {
	for _, i := range r.byG[w.G] {
		s := &r.tr.Events[i]
		if s.Pre <= w.Stamp || s.Pre >= to || !sent(s) {
			continue
		}
		took := -1 // d's first operation that the send happens before
		for _, j := range r.byG[d] {
			if x := &r.tr.Events[j]; x.Pre >= from && x.Pre < to && c.HappensBefore(i, j) && (took < 0 || x.Pre < r.tr.Events[took].Pre) {
				took = j
			}
		}
		if took < 0 {
			continue
		}
		for _, k := range r.byG[w.G] {
			if a := &r.tr.Events[k]; a.Pre > s.Pre && a.Pre < to && received(a) && c.HappensBefore(took, k) {
				return true
			}
		}
	}
	return false
}

// sent reports whether e, completed, sent on a channel (a send, or a select's send case).
func sent(e *trace.Event) bool {
	switch {
	case !e.Completed() || e.Flags.Has(trace.FlagClosed):
		return false
	case e.Kind == trace.KindChanSend:
		return true
	case e.Kind == trace.KindSelect && e.A != trace.SelectDefault:
		return slices.ContainsFunc(e.Cases, func(c trace.Case) bool { return c.Index == int(e.A) && c.Send })
	}
	return false
}

// received reports whether e, completed, received from a channel (a value or its close).
func received(e *trace.Event) bool {
	switch {
	case !e.Completed():
		return false
	case e.Kind == trace.KindChanRecv:
		return true
	case e.Kind == trace.KindSelect && e.A != trace.SelectDefault:
		return slices.ContainsFunc(e.Cases, func(c trace.Case) bool { return c.Index == int(e.A) && !c.Send })
	}
	return false
}

// tells reports whether an operation of kind can tell another goroutine something other than a
// message it asked for: a close, a release, a store, a WaitGroup's count, a Cond's signal.
func tells(k trace.Kind) bool {
	switch k {
	case trace.KindChanClose, trace.KindUnlock, trace.KindRUnlock, trace.KindAtomicStore, trace.KindAtomicRMW,
		trace.KindWgAdd, trace.KindWgDone, trace.KindCondSignal, trace.KindCondBroadcast:
		return true
	}
	return false
}

// failing testing.T methods of a TestUse (FORMAT.md): Error, Errorf, Fatal, Fatalf, Fail, FailNow.
func failingTestUse(e *trace.Event) bool {
	if e.Kind != trace.KindTestUse {
		return false
	}
	switch e.A {
	case 3, 4, 5, 6, 10, 11:
		return true
	}
	return false
}

// failureAfter is the first failing testing.T call of goroutine g requested after stamp, -1
// when there is none (an assertion library calling t.Errorf from a dependency is not
// recorded: FORMAT.md's TestUse).
func (r *timingRelation) failureAfter(g uint64, stamp uint64) int {
	best := -1
	for _, i := range r.byG[g] {
		if e := &r.tr.Events[i]; e.Pre > stamp && failingTestUse(e) && (best < 0 || e.Pre < r.tr.Events[best].Pre) {
			best = i
		}
	}
	return best
}

// clocks are the trace's per-event clocks, computed once, within the default memory budget
// of an analysis; nil past it (the rule then does not apply: the hold stays evidence).
func (r *timingRelation) clocks() *Clocks {
	if !r.clocksTried {
		r.clocksTried = true
		r.hb, _ = (&Result{Trace: r.tr}).ClocksWithin()
	}
	return r.hb
}
