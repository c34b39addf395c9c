// Copyright goweave authors. Added to package runtime by the goweave overlay.

// goweave timing records: what a run's wall clock did, so that a failure the
// schedule caused only by holding a goroutine longer than the program waits
// with a sleep or a timer can be told apart from a concurrency bug
// (analysis/timing.go). Two record kinds, both with the wall-clock start in
// b (nanotime) and neither an operation of the program: the trace reader
// keeps them apart from the events (FORMAT.md).
//
//   - Hold: the schedule parked a goroutine before an operation (a delay or
//     the order), or a select preference kept its select from its other
//     cases for the whole window: g, pos and aux (kind) of the held
//     operation, a = ns held. A preference whose case came after the
//     goroutine had waited for it while another case of the select (or its
//     default) was ready: obj is the preferred case's channel (0 for the
//     holds above), so that the analysis can tell a select held until its
//     clock's case (a timer's channel, a context's Done) was ready.
//   - TimedWait: a goroutine started a wait bounded by wall-clock time: a
//     time.Sleep (aux 0, obj 0), a timer with a channel (NewTimer, After:
//     aux 1, obj the channel) or a function (AfterFunc, a context's
//     deadline: aux 2, obj the timer); a = its duration in ns. A ticker
//     (aux 3, obj its channel, a = its period, b = its first tick less a
//     period) is no deadline; it only names its channel a clock's, for a
//     select a preference held until a tick came. A Reset of a timer or a
//     ticker is one too, with its new duration or period, on the same obj.
//
// Neither updates the goroutine's newest event (goweaveG.last), which the
// schedule's settle logic reads.

package runtime

import (
	"internal/abi"
	"internal/runtime/atomic"
)

const (
	goweaveKHold      = 80
	goweaveKTimedWait = 81

	goweaveWaitSleep     = 0
	goweaveWaitTimerChan = 1
	goweaveWaitTimerFunc = 2
	goweaveWaitTicker    = 3
)

// goweaveSleep records a time.Sleep(ns) called at return address pc. The
// schedule's own sleeps (goweaveSteerSleep) are not user code and are not
// recorded; nor are sleeps in a synctest bubble, on its fake clock.
func goweaveSleep(ns int64, pc uintptr) {
	if !goweaveOn || ns <= 0 {
		return
	}
	gp := getg()
	if gp != gp.m.curg || gp.bubble != nil {
		return
	}
	lib := gp.goweave.lib
	pos := goweavePosOf(pc)
	gp.goweave.lib = lib // the flag is for the next operation's record, not this one
	if pos == 0 {
		return
	}
	goweaveTimedRecord(goweaveKTimedWait, goweaveWaitSleep, pos, gp.goid, 0, uint64(ns), nanotime())
}

// goweaveTimerWait records the current goroutine setting timer or ticker t
// at pos (a user position) to expire at when, every period ns after for a
// ticker: its creation or a Reset. c is its channel at its creation, nil for
// AfterFunc, for every channel timer under asynctimerchan=1 and at a Reset:
// then a channel timer is told by its function's argument, its channel.
func goweaveTimerWait(t *timeTimer, c *hchan, pos uint32, when, period int64) {
	if pos == 0 || t.isFake {
		return
	}
	now := nanotime()
	d := when - now
	if period > 0 {
		d, now = period, when-period
	} else if d <= 0 {
		// Due before it was set (a short timer set by a goroutine slower than
		// it, on a loaded machine): it expires now.
		d = 1
	}
	aux, obj := uint16(goweaveWaitTimerFunc), t.goweaveID
	if c != nil {
		aux = goweaveWaitTimerChan
	} else if e := efaceOf(&t.arg); e._type != nil && e._type.Kind() == abi.Chan {
		// A channel timer being reset, or one of a module whose go.mod
		// predates Go 1.23 (asynctimerchan=1): the runtime does not know its
		// channel, whose value is sent by the timer's function. Named by that
		// channel, whose receives show the fire.
		aux = goweaveWaitTimerChan
		if hc := (*hchan)(e.data); hc != nil && hc.goweave.id != 0 {
			obj = hc.goweave.id
		}
	}
	if period > 0 {
		if aux != goweaveWaitTimerChan {
			return // a periodic function timer: no channel to name
		}
		aux = goweaveWaitTicker
	}
	goweaveTimedRecord(goweaveKTimedWait, aux, pos, getg().goid, obj, uint64(d), now)
}

// goweaveHoldEnd records that the schedule held gp before its operation of
// kind at pos, from nanotime t0 until now, if it parked gp at all.
func goweaveHoldEnd(gp *g, kind uint8, pos uint32, t0 int64) {
	s := &gp.goweave.s
	if !s.held {
		return
	}
	s.held = false
	if pos == 0 {
		return
	}
	goweaveTimedRecord(goweaveKHold, uint16(kind), pos, gp.goid, 0, uint64(nanotime()-t0), t0)
}

// goweavePreferHeld records that a select preference held gp's select at
// pos from nanotime t0 for its whole window (it fell back to a normal select
// after it): the select's other cases waited that long.
func goweavePreferHeld(gp *g, kind uint8, pos uint32, t0, window int64) {
	if d := nanotime() - t0; d >= window && pos != 0 {
		goweaveTimedRecord(goweaveKHold, uint16(kind), pos, gp.goid, 0, uint64(d), t0)
	}
}

// goweavePreferCame records that a select preference kept gp's select at
// pos from nanotime t0 until its preferred case, on channel c, completed,
// while another case was ready (other): a goroutine slow to reach the select
// that long would have found both ready. A preference satisfied at its
// first look held nothing and is not recorded.
func goweavePreferCame(gp *g, pos uint32, c *hchan, t0 int64, other bool) {
	if d := nanotime() - t0; other && d >= goweavePollNs && pos != 0 && c != nil && c.goweave.id != 0 {
		goweaveTimedRecord(goweaveKHold, goweaveKSelect, pos, gp.goid, c.goweave.id, uint64(d), t0)
	}
}

// goweaveOtherReady reports whether a case of a select other than si (an
// scase index; sends first) is ready now, or the select has a default
// (!block). Lock-free looks, as selectnbrecv's fast path takes them.
func goweaveOtherReady(cases []scase, si, nsends int, block bool) bool {
	if !block {
		return true
	}
	for i := range cases {
		c := cases[i].c
		if i == si || c == nil {
			continue
		}
		if atomic.Load(&c.closed) != 0 {
			return true
		}
		if i < nsends && !full(c) || i >= nsends && !empty(c) {
			return true
		}
	}
	return false
}

// goweaveTimedRecord writes a completed record of kind, stamped now.
func goweaveTimedRecord(kind uint8, aux uint16, pos uint32, goid, obj, a uint64, start int64) {
	h, stamp := goweaveReserve(1)
	if h == 0 {
		return
	}
	e := goweaveRec(h)
	e.kind = kind
	e.aux = aux
	e.pos = pos
	e.g = goid
	e.obj = obj
	e.pre = stamp
	e.post = stamp
	e.a = a
	e.b = uint64(start)
}
