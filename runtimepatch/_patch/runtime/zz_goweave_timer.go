// Copyright goweave authors. Added to package runtime by the goweave overlay.

// goweave timers: a user goroutine setting a timer (TimerSet: the creation of
// an AfterFunc timer, or a Reset; a channel timer's creation is its channel's
// ChanMake, inside NewTimer, NewTicker or After), a timer or ticker
// delivering a value on its channel (TimerFire) and the goroutine an
// AfterFunc timer starts when it fires (a GoSpawn of no goroutine with the
// timer as its object): FORMAT.md. The analysis orders set -> fire ->
// receive (or -> the AfterFunc goroutine).
//
// Fires. The runtime's send (time.sendTime, a
// non-blocking send) is no operation of any goroutine of the program: it runs
// wherever the timer runs, on g0 from the scheduler's timer check or nested
// inside the receiving goroutine's own receive or select (maybeRunChan). It
// is recorded where the value enters the channel, from the channel hooks
// (zz_goweave_chan.go), under the channel lock: only the lock-free recorder
// (goweaveReserve, records outside the Go heap, no write barriers, no
// allocation) is used here, which is safe on g0, without a P and with
// runtime locks held.
//
// A fire is recorded only for a channel whose make was recorded (c.goweave.pos:
// a NewTimer, NewTicker or After called from the module under test), so the
// standard library's own timers add no events. Its seq is the channel's send
// count, so the receive that gets the value (whose seq counts value
// receives) has the same seq: the fire happens before that receive.

package runtime

const (
	goweaveKTimerFire = 60
	goweaveKTimerSet  = 61
)

// goweaveTimerFire records the delivery of the seq-th value on timer channel
// c. c is locked.
func goweaveTimerFire(c *hchan, seq uint64) {
	if !goweaveOn || c.goweave.id == 0 || c.goweave.pos == 0 {
		return
	}
	if e := goweaveRuntimeEvent(goweaveKTimerFire, c.goweave.pos, c.goweave.id, seq); e != nil {
		e.b = uint64(c.qcount)
		e.c = uint64(c.dataqsiz)
	}
}

// goweaveTimerDrain: Stop or Reset of a timer discarded a value its channel
// held (timerchandrain), which no receive will get: it counts as taken, so
// that the k-th value receive still gets the k-th value sent. c is locked.
func goweaveTimerDrain(c *hchan) {
	if goweaveOn && c.goweave.id != 0 {
		c.goweave.recvs++
	}
}

// goweaveTimerSet records the current goroutine setting timer t to expire
// at when (nanotime; every period ns after, for a ticker): creating it
// (newTimer; c is its channel, nil for AfterFunc) or resetting it
// (resetTimer, c nil: Timer.Reset, Ticker.Reset). pc is the return address
// into package time, whose operations are attributed to the innermost user
// frame. The timer's object id is its channel's, or one of its own. The
// creation of a channel timer is not recorded again: its channel's make,
// just before, on the same goroutine, stands for it (and a time.After in a
// loop pays for one attribution, not two). Each setting is a wait bounded
// by the clock, with its duration (goweaveTimerWait): a Reset starts a new
// one on the same object.
func goweaveTimerSet(t *timeTimer, c *hchan, when, period int64, pc uintptr) {
	if !goweaveOn {
		return
	}
	created := t.goweaveID == 0
	if created {
		if c != nil && c.goweave.id != 0 {
			t.goweaveID, t.goweavePos = c.goweave.id, c.goweave.pos
			goweaveTimerWait(t, c, c.goweave.pos, when, period)
			return
		}
		t.goweaveID = goweaveObjects.Add(1)
	}
	pos := goweavePosOf(pc)
	if pos == 0 {
		return
	}
	if created {
		t.goweavePos = pos
	}
	goweaveTimerWait(t, c, pos, when, period)
	h := goweaveOpen(getg(), goweaveKTimerSet, 0, pos, t.goweaveID)
	if h == 0 {
		return
	}
	e := goweaveRec(h)
	e.post = e.pre
	if created {
		e.a = 1
	}
}

// goweaveTimerRun marks the goroutine running a timer's function (on g0 from
// the scheduler, t nil when the function returned), so that the goroutine
// an AfterFunc's function starts is known as the timer's.
func goweaveTimerRun(t *timer) {
	if !goweaveOn {
		return
	}
	gp := getg()
	if t == nil || t.isChan {
		gp.goweave.timer, gp.goweave.timerPos = 0, 0
		return
	}
	gp.goweave.timer, gp.goweave.timerPos = t.goweaveID, t.goweavePos
}

// goweaveTimerSpawn records the start of child by the function of the timer
// running on parent (time.AfterFunc's goFunc): a GoSpawn of no goroutine,
// with the timer as its object, at the position of the timer's creation
// (internal: no schedule names it), to which the child's library operations
// are attributed too.
func goweaveTimerSpawn(parent, child *g, pos uint32) {
	if p := parent.goweave.timerPos; p != 0 {
		pos = p
		child.goweave.spawnPos = p
	}
	if e := goweaveRuntimeEvent(goweaveKGoSpawn, pos, parent.goweave.timer, child.goid); e != nil {
		e.b = goweaveBubbleID(child)
	}
}

// goweaveRuntimeEvent records an operation the runtime performed for the
// program on no goroutine of it (g 0, internal: no schedule names it),
// completed at once: a timer's fire, the start of an AfterFunc's goroutine.
// It uses only the lock-free recorder, so it is safe on g0, without a P and
// with runtime locks held. nil when the trace is full.
func goweaveRuntimeEvent(kind uint8, pos uint32, obj, a uint64) *goweaveEvent {
	h, stamp := goweaveReserve(1)
	if h == 0 {
		return nil
	}
	e := goweaveRec(h)
	e.kind = kind
	e.flags = goweaveFInternal
	e.pos = pos
	e.g = 0
	e.obj = obj
	e.pre = stamp
	e.post = stamp
	e.a = a
	return e
}
