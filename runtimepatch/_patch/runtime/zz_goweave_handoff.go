// Copyright goweave authors. Added to package runtime by the goweave overlay.

// Where a held mutex may have gone: the stuck check's evidence that a lock
// cycle is certain (zz_goweave_stuck.go). A mutex's locker need not unlock
// it: it may hand it to another goroutine (a message on a channel, a go
// statement, data under another mutex), and a hand-off is seen only at its
// Unlock. So a possible hand-off carries a tag, the bits (goid%64) of the
// goroutines whose held mutexes it may carry: its sender's bit when the
// sender holds a write lock it took, and whatever the sender heard before (a
// mutex handed on again). A goroutine that receives a tag "heard" it and is a
// carrier of those goroutines' mutexes. A holder that passed a tag since it
// locked its mutex closes a cycle only if nothing else may unlock it: no
// tagged message of it waits in a channel buffer or a mutex (goweaveTagPend),
// and every carrier that heard it since is a goroutine of the cycle (parked in
// Lock, it unlocks nothing). A close is no hand-off: it tells every receiver
// at once, and a mutex is unlocked once (lock-order tests announce their held
// locks by closing channels the test goroutine waits on, off the cycle).
//
// Cost on a goroutine's path (only while the stuck check is armed): a Lock
// and an Unlock count the write locks held, a send, go statement or
// Unlock computes its tag (two loads); only a tagged one writes a stamp and
// the receiver's bits, and a receive from a channel with tagged messages in
// its buffer takes them. Untagged traffic (a goroutine that holds no lock
// and heard nothing) pays a load and a branch.

package runtime

import (
	"internal/runtime/atomic"
	"internal/runtime/sys"
)

// goweaveTagPend[b] counts the channel buffers and unlocked mutexes holding
// a tag that goroutine bit b made while holding a lock, which nobody has
// taken yet: a mutex in flight, whose receiver is not known.
// goweaveTagPendFwd counts those holding tags passed on (bits heard): one
// is in flight from a carrier, whoever locked it. Counted once per buffer or
// mutex, not per message, so that a tag that went everywhere (every
// goroutine heard something) costs a stream of messages no atomic beyond a
// buffer's first. The tags of a channel dropped with messages in its buffer
// stay, and so does a tag lost to a holder slot's collision: both only make
// the check more careful.
var (
	goweaveTagPend    [64]atomic.Int32
	goweaveTagPendFwd atomic.Int32
)

func goweaveBit(goid uint64) uint64 { return 1 << (goid & 63) }

// goweaveTag is what a possible hand-off by gp carries (0: nothing).
func goweaveTag(gp *g) uint64 {
	return gp.goweave.heard | goweaveOwn(gp)
}

// goweaveOwn is gp's bit when it holds a write lock it took, else 0.
func goweaveOwn(gp *g) uint64 {
	if gp.goweave.wheld != 0 {
		return goweaveBit(gp.goid)
	}
	return 0
}

func goweaveStampNow() uint64 {
	_, s := goweaveLoadCounts()
	return s
}

func goweaveHear(gp *g, t, now uint64) {
	gp.goweave.heard |= t
	gp.goweave.heardAt = now
}

// goweavePend adds d to the pending counts of the holders own and, when
// fwd, of the tags passed on.
func goweavePend(own uint64, fwd bool, d int32) {
	for ; own != 0; own &= own - 1 {
		goweaveTagPend[sys.TrailingZeros64(own)].Add(d)
	}
	if fwd {
		goweaveTagPendFwd.Add(d)
	}
}

// goweaveHandSpawn: parent starts child (a go statement).
func goweaveHandSpawn(parent, child *g) {
	if t := goweaveTag(parent); t != 0 {
		now := goweaveStampNow()
		parent.goweave.passAt = now
		goweaveHear(child, t, now)
	}
}

// goweaveHandChan: a value of c goes from a parked goroutine to the current
// one or back (sg's: the receiver when sender, else the sender). c is locked.
func goweaveHandChan(c *hchan, sg *sudog, sender bool) {
	from, to := getg(), sg.g
	if !sender {
		from, to = to, from
	}
	if sender || c.dataqsiz == 0 {
		// straight from one to the other (a receiver parks only on an empty buffer)
		if t := goweaveTag(from); t != 0 {
			now := goweaveStampNow()
			from.goweave.passAt = now
			goweaveHear(to, t, now)
		}
		return
	}
	// a full buffer: the receiver takes its head, the sender's value goes to its tail
	goweaveTagSend(c, from)
	if c.goweave.tagSeq != 0 {
		goweaveTagRecv(c, to)
	}
}

// goweaveTagSend: from put a value into c's buffer (c.goweave.sends counts
// it). c is locked.
func goweaveTagSend(c *hchan, from *g) {
	own, heard := goweaveOwn(from), from.goweave.heard
	if own|heard == 0 {
		return
	}
	from.goweave.passAt = goweaveStampNow()
	own &^= c.goweave.pend
	fwd := heard != 0 && !c.goweave.fwd
	if own != 0 || fwd {
		goweavePend(own, fwd, 1)
		c.goweave.pend |= own
		c.goweave.fwd = c.goweave.fwd || fwd
	}
	c.goweave.tag |= own | heard
	c.goweave.tagSeq = c.goweave.sends
}

// goweaveTagRecv: to took a value from c's buffer (c.goweave.recvs counts
// it): it hears the tags of the messages up to the last tagged one (which
// message carried which is not kept). c is locked.
func goweaveTagRecv(c *hchan, to *g) {
	seq := c.goweave.tagSeq
	if seq == 0 || c.goweave.recvs > seq {
		return
	}
	goweaveHear(to, c.goweave.tag, goweaveStampNow())
	if c.goweave.recvs == seq {
		goweavePend(c.goweave.pend, c.goweave.fwd, -1)
		c.goweave.tag, c.goweave.tagSeq, c.goweave.pend, c.goweave.fwd = 0, 0, 0, false
	}
}

// goweaveHandUnlock: gp write-unlocks the mutex of holder slot h: what it
// guarded (a queue, a field) may carry a mutex gp holds to the next locker,
// so the slot keeps gp's tag for it. Returns whether it did (the slot then
// keeps its id with no holder).
func goweaveHandUnlock(gp *g, h *goweaveHeld) bool {
	own, heard := goweaveOwn(gp), gp.goweave.heard
	if own|heard == 0 {
		return false
	}
	gp.goweave.passAt = goweaveStampNow()
	goweavePend(own, heard&^own != 0, 1) // as goweaveTagTaken takes it back
	goweaveTagTaken(h, own, own|heard)
	atomic.Store64(&h.goid, 0)
	return true
}

// goweaveTagTaken swaps the tag t, whose own bits are own, into slot h
// and returns the tag it held, its pending counts taken back (nobody took it
// before: a slot's collision, or the next locker taking it).
func goweaveTagTaken(h *goweaveHeld, own, t uint64) uint64 {
	// own first: a locker that takes the tag reads own after it
	oldOwn := atomic.Xchg64(&h.own, own)
	old := atomic.Xchg64(&h.tag, t)
	if old != 0 {
		goweavePend(oldOwn, old&^oldOwn != 0, -1)
	}
	return old
}

// goweaveTagLocked: gp acquires obj, whose holder slot is h: it hears the
// tag its last unlocker left. A tag of another id (a collision) is dropped.
func goweaveTagLocked(gp *g, obj uint64, h *goweaveHeld) {
	if atomic.Load64(&h.tag) == 0 {
		return
	}
	t := goweaveTagTaken(h, 0, 0)
	if t == 0 {
		return
	}
	if atomic.Load64(&h.id) == obj {
		goweaveHear(gp, t, goweaveStampNow())
	}
}
