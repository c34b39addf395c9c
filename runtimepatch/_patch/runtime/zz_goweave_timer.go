// Copyright goweave authors. Added to package runtime by the goweave overlay.

// goweave timer fires: a timer or ticker delivering a value on its channel
// (FORMAT.md kind TimerFire). The runtime's send (time.sendTime, a
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

const goweaveKTimerFire = 60

// goweaveTimerFire records the delivery of the seq-th value on timer channel
// c. c is locked.
func goweaveTimerFire(c *hchan, seq uint64) {
	if !goweaveOn || c.goweave.id == 0 || c.goweave.pos == 0 {
		return
	}
	h, stamp := goweaveReserve(1)
	if h == 0 {
		return
	}
	e := goweaveRec(h)
	e.kind = goweaveKTimerFire
	e.flags = goweaveFInternal // performed by the runtime for the timer made at pos
	e.pos = c.goweave.pos
	e.g = 0 // no goroutine of the program
	e.obj = c.goweave.id
	e.pre = stamp
	e.post = stamp
	e.a = seq
	e.b = uint64(c.qcount)
	e.c = uint64(c.dataqsiz)
}

// goweaveTimerDrain: Stop or Reset of a timer discarded a value its channel
// held (timerchandrain), which no receive will get: it counts as taken, so
// that the k-th value receive still gets the k-th value sent. c is locked.
func goweaveTimerDrain(c *hchan) {
	if goweaveOn && c.goweave.id != 0 {
		c.goweave.recvs++
	}
}
