package analysis

import "github.com/goweave/goweave/analysis/trace"

// Rule a pending deadline may still wake: a goroutine blocked on a channel a library made
// for the user (a context's Done) is not stuck while a function timer of the run is pending
// (set, and not fired since its last setting): a context's deadline is such a timer, and
// when it fires it closes Done. A run stopped at its time limit in that state is slow, not
// hung (survey 10, jonboulle/clockwork's TestFakeTicker_DeliveryOrder: the test waited on a
// select with the Done of a one-minute context.WithTimeout, was stopped at its 30 s cap, and
// was reported as a deadlock "no goroutine left can complete it" beside goweave's own
// warning "slow, not hung ... a timer pending"). A stopped timer (Stop is not recorded)
// counts as pending: a context's cancel closes Done itself, so such a wait completes
// anyway.

// timerMayWake reports whether blocked operation i waits on a library's channel while a
// function timer is pending.
func (r *Result) timerMayWake(i int32) bool {
	if !r.funcTimerPending() {
		return false
	}
	ev := &r.Trace.Events[i]
	libChan := func(obj uint64) bool {
		x, ok := r.eng.chanIdx[obj]
		return ok && r.eng.chans[x].lib
	}
	switch ev.Kind {
	case trace.KindChanRecv:
		return libChan(ev.Obj)
	case trace.KindSelect:
		for _, c := range ev.Cases {
			if !c.Send && c.Obj != 0 && libChan(c.Obj) {
				return true
			}
		}
	}
	return false
}

// funcTimerPending reports whether some function timer (time.AfterFunc, a context's
// deadline) was set in the run and has not fired since its last setting: timerSettings keeps
// a setting only when it expired or is its timer's last, so a kept one that did not expire
// is pending.
func (r *Result) funcTimerPending() bool {
	if r.timerPending != 0 {
		return r.timerPending > 0
	}
	r.timerPending = -1
	var waits []trace.Timed
	for _, w := range r.Trace.Timed {
		if w.Kind == trace.KindTimedWait && w.Aux == trace.WaitTimerFunc && w.Obj != 0 {
			waits = append(waits, w)
		}
	}
	if len(waits) == 0 {
		return false
	}
	kept, expired, _ := timerSettings(r.Trace, waits)
	for _, w := range kept {
		if !expired[w.Stamp] {
			r.timerPending = 1
			return true
		}
	}
	return false
}
