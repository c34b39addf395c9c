// Copyright goweave authors. Added to package runtime by the goweave overlay.

// goweave's schedule waits inside testing/synctest bubbles. A bubble advances
// its fake clock, and declares "all goroutines in bubble are blocked", when
// every goroutine in it is durably blocked; a goroutine the schedule holds
// counts as idle to it if it parks with an idle wait reason (sleep) or
// selects only on bubbled channels. The bubble would then move its clock, or
// panic, while goweave is about to release the goroutine: outcomes the
// program can never have. So while the schedule holds a goroutine the bubble
// must see it running, as it would see a goroutine that is merely slow.

package runtime

// goweaveSteerPark parks gp on goweaveSteerMu (held) for the schedule. The
// bubble sees no status change: it counts gp as running until gp runs again.
func goweaveSteerPark(gp *g) {
	b := gp.bubble
	gp.bubble = nil
	gp.goweave.s.held = true
	goparkunlock(&goweaveSteerMu, waitReasonSleep, traceBlockSleep, 2)
	gp.bubble = b
}

// goweaveSteerSleep sleeps ns of real time: in a bubble, time.Sleep would
// wait on the fake clock and count as idle.
func goweaveSteerSleep(ns int64) {
	gp := getg()
	b, t := gp.bubble, gp.timer
	if b == nil {
		timeSleep(ns)
		return
	}
	// The goroutine's cached sleep timer is a fake one: sleep on a real one.
	gp.bubble, gp.timer = nil, nil
	timeSleep(ns)
	gp.bubble, gp.timer = b, t
}
