package analysis

import "github.com/goweave/goweave/analysis/trace"

// Rule non-blocking operations: a select with a default case, and the non-blocking send or
// receive the compiler makes of a one-case select with default (recorded as a Select with
// the nonblocking flag), never waits. It cannot be the operation a goroutine blocks on
// while holding a lock, so it is never the blocking side of a mixed deadlock: when its
// partner is not ready it takes the default and goes on to unlock. The flag marks the
// select whatever it chose (a case that communicated in this run is still only an offer).
func (r *Result) nonBlocking(i int32) bool {
	ev := &r.Trace.Events[i]
	return ev.Kind == trace.KindSelect && ev.Flags.Has(trace.FlagNonBlocking)
}

// cannotWaitForever reports whether operation i, blocked or able to block, ends its wait
// whatever its partners do, so that it cannot hold a lock forever (the blocking side of a
// mixed deadlock): a non-blocking select; a select with a case on a one-shot timer's
// channel (time.After, time.NewTimer), which the runtime fires at its deadline (survey 8's
// watermill router: Close holds its lock across a select on the handlers and a 30 s
// time.After; IsClosed waits for that lock, for 30 s at most); a receive from a channel
// that its own goroutine closed before it (a drain: `close(ch); for range ch {}` under the
// lock only takes what is buffered, survey 8's go-playground/pool); and an operation still
// pending at the end that receives from a channel whose close had completed before it was
// requested (closedBeforePending); a receive guarded by len(ch) > 0 of the channel's only
// receiver (lenGuardedRecv).
func (r *Result) cannotWaitForever(i int32) bool {
	ev := &r.Trace.Events[i]
	switch ev.Kind {
	case trace.KindSelect:
		if r.nonBlocking(i) {
			return true
		}
		for _, c := range ev.Cases {
			if !c.Send && c.Obj != 0 && (r.oneShotTimerChan(c.Obj) || r.closedBeforePending(i, c.Obj)) {
				return true
			}
		}
	case trace.KindChanRecv:
		if r.closedBeforePending(i, ev.Obj) || r.lenGuardedRecv(i) {
			return true
		}
		if x, ok := r.eng.chanIdx[ev.Obj]; ok {
			cl := r.eng.chans[x].closeEv
			return cl >= 0 && r.gOf[cl] == r.gOf[i] && r.Trace.Events[cl].Pre < ev.Pre
		}
	}
	return false
}

// closedBeforePending reports whether operation i, not completed when the trace was
// written, receives from channel obj whose close had completed before i was requested
// (global stamps are real-time order). The runtime takes a closed channel's receive at
// once, so i was never parked: the schedule was holding its goroutine before it looked at
// its cases when the process ended (survey 8 rerun, watermill's TestFanIn: a failed test
// exited while goweave held a subscriber's send select at pubsub.go:399, whose
// `<-s.closing` had been closed by the subscriber's Close; the lock it held was reported as
// a mixed deadlock). A completed operation says nothing here: in another schedule the close
// may come later.
func (r *Result) closedBeforePending(i int32, obj uint64) bool {
	ev := &r.Trace.Events[i]
	if ev.Post != 0 || obj == 0 {
		return false
	}
	x, ok := r.eng.chanIdx[obj]
	if !ok {
		return false
	}
	cl := r.eng.chans[x].closeEv
	return cl >= 0 && r.Trace.Events[cl].Post != 0 && r.Trace.Events[cl].Post < ev.Pre
}

// oneShotTimerChan reports whether channel obj is a one-shot timer's (NewTimer, After): the
// runtime recorded the timer's creation with it (a TimedWait of a channel timer).
func (r *Result) oneShotTimerChan(obj uint64) bool {
	if r.timerChans == nil {
		r.timerChans = map[uint64]bool{}
		for _, t := range r.Trace.Timed {
			if t.Kind == trace.KindTimedWait && t.Aux == trace.WaitTimerChan && t.Obj != 0 {
				r.timerChans[t.Obj] = true
			}
		}
	}
	return r.timerChans[obj]
}

// holderWaitsOnClock reports whether Lock or RLock i, blocked at the end, waits for a
// mutex whose holder is itself blocked in an operation that cannot wait forever (a select
// on a timer's channel): the holder's timer will release it, so i is not blocked forever.
func (r *Result) holderWaitsOnClock(i int32) bool {
	return r.someHolder(i, func(info GoroutineInfo) bool {
		return info.Blocked >= 0 && r.cannotWaitForever(int32(info.Blocked))
	})
}

// someHolder reports whether Lock or RLock i waits for a mutex that another goroutine
// holds at the end, one for which is reports true.
func (r *Result) someHolder(i int32, is func(GoroutineInfo) bool) bool {
	ev := &r.Trace.Events[i]
	if ev.Kind != trace.KindLock && ev.Kind != trace.KindRLock {
		return false
	}
	for _, h := range r.heldAcqs(ev.Obj) {
		if g := r.gOf[h]; g >= 0 && g != r.gOf[i] && is(r.Goroutines[g]) {
			return true
		}
	}
	return false
}
