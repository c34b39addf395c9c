// Copyright goweave authors. Added to package runtime by the goweave overlay.

// goweave channel and select hooks, called from one-line patch sites in
// chan.go and select.go.
//
// A recorded channel operation opens its record in a "pre" hook before any
// channel lock is taken (the place where schedule control will park a
// goroutine) and keeps the handle in g.goweave.rec. Whichever goroutine then
// transfers the value (or the close) completes the record under the channel
// lock, also for a peer that is parked: the peer's record is reached through
// sudog.g. fam tells which entry point opened the record, so that the timer
// send nested inside a receive or select (time.sendTime via maybeRunChan)
// never completes the outer operation.

package runtime

import "unsafe"

// Entry points that open a channel record (goweaveG.fam).
const (
	goweaveFamSend   = 1 // chansend1, selectnbsend
	goweaveFamRecv   = 2 // chanrecv1, chanrecv2, selectnbrecv
	goweaveFamSelect = 3 // selectgo
)

const goweaveNone = ^uint64(0) // Select.a when no case was chosen

// goweaveChanMake assigns the channel its object id and records the make.
func goweaveChanMake(c *hchan, size int, pc uintptr) {
	if !goweaveOn {
		return
	}
	c.goweave.id = goweaveObjects.Add(1)
	pos := goweavePosOf(pc)
	c.goweave.pos = pos
	if pos == 0 {
		return
	}
	gp := getg()
	goweaveCountOnly(gp, pos)
	h := goweaveOpen(gp, goweaveKChanMake, 0, pos, c.goweave.id)
	if h == 0 {
		return
	}
	e := goweaveRec(h)
	e.a = uint64(size)
	e.post = e.pre
}

// goweaveChanPre opens a send (recv == false) or receive record: the
// pre hook of chansend1, chanrecv1 and chanrecv2.
func goweaveChanPre(c *hchan, recv, valueUsed, commaOK bool, pc uintptr) {
	if !goweaveOn {
		return
	}
	if pos := goweavePosOf(pc); pos != 0 {
		goweaveChanPreAt(c, recv, valueUsed, commaOK, pos)
	}
}

// goweaveChanPreAt opens the record of a blocking send or receive at user
// position pos (chansend1 and the like, or reflect: zz_goweave_reflect.go).
func goweaveChanPreAt(c *hchan, recv, valueUsed, commaOK bool, pos uint32) {
	kind, fam, flags := uint8(goweaveKChanSend), uint8(goweaveFamSend), uint8(0)
	if recv {
		kind, fam = goweaveKChanRecv, goweaveFamRecv
		if valueUsed && (c == nil || c.elemsize != 0) { // a struct{} value tells nothing: a signal
			flags |= goweaveFValueUsed
		}
		if commaOK {
			flags |= goweaveFCommaOK
		}
	}
	gp := getg()
	goweaveBefore(gp, kind, pos)
	var obj, capacity uint64
	if c == nil {
		flags |= goweaveFNilChan
	} else {
		obj, capacity = c.goweave.id, uint64(c.dataqsiz)
	}
	h := goweaveOpen(gp, kind, flags, pos, obj)
	if h == 0 {
		return
	}
	goweaveRec(h).c = capacity
	gp.goweave.rec, gp.goweave.fam = h, fam
}

// goweaveSelectPre opens a Select record followed by one SelectCase record
// per case, in source order: the pre hook of selectgo (cases != nil) and of
// `select {}` (no cases). scase holds the sends first, in source order, then
// the receives in reverse source order; case k of the trace is the k-th
// send, or the (k-nsends)-th receive. Returns the Select handle and, when a
// schedule's select preference decided the select (casi !=
// goweaveSelectRun), the result selectgo must return.
func goweaveSelectPre(cas0 *scase, nsends, nrecvs int, block bool, pc uintptr) (h uint64, casi int, recvOK bool) {
	if !goweaveOn {
		return 0, goweaveSelectRun, false
	}
	pos := goweavePosOf(pc)
	if pos == 0 {
		return 0, goweaveSelectRun, false
	}
	gp := getg()
	goweaveBefore(gp, goweaveKSelect, pos)
	n := nsends + nrecvs
	h = goweaveSelectOpen(gp, pos, cas0, nsends, n, block)
	if goweaveSchedOn && n > 0 {
		if casi, recvOK, done := goweaveSelectPrefer(gp, h, pos, cas0, nsends, n, block); done {
			return h, casi, recvOK
		}
	}
	return h, goweaveSelectRun, false
}

// goweaveSelectOpen writes the Select record and its SelectCase records.
func goweaveSelectOpen(gp *g, pos uint32, cas0 *scase, nsends, n int, block bool) uint64 {
	h, pre := goweaveReserve(uint64(1 + n))
	if h == 0 {
		return 0
	}
	e := goweaveRec(h)
	e.kind = goweaveKSelect
	e.aux = uint16(n)
	if !block {
		e.flags = goweaveFNonBlocking
	}
	e.pos = pos
	e.g = gp.goid
	e.a = goweaveNone
	e.pre = pre
	if gp.goweave.lib {
		e.flags |= goweaveFInternal
		gp.goweave.lib = false
	}
	if n > 0 {
		cases := (*[1 << 16]scase)(unsafe.Pointer(cas0))[:n:n]
		for i := range cases {
			src, dir := i, uint64(1)
			if i >= nsends {
				src, dir = goweaveSourceCase(i, nsends, n), 2
			}
			ce := goweaveRec(h + 1 + uint64(src))
			ce.kind = goweaveKSelectCase
			ce.aux = uint16(src)
			ce.pos = pos
			ce.g = e.g
			ce.pre = e.pre
			ce.a = dir
			if c := cases[i].c; c != nil {
				ce.obj = c.goweave.id
			}
			if dir == 2 && cases[i].elem != nil && (cases[i].c == nil || cases[i].c.elemsize != 0) {
				ce.flags = goweaveFValueUsed
			}
		}
	}
	gp.goweave.last = h + uint64(n)
	gp.goweave.rec, gp.goweave.fam = h, goweaveFamSelect
	return h
}

// goweaveSourceCase maps an scase index to the trace's case index.
func goweaveSourceCase(casi, nsends, ncases int) int {
	if casi < nsends {
		return casi
	}
	return nsends + (ncases - 1 - casi)
}

// goweaveSelectEnd is called where selectgo returns: it records which case
// was chosen, or completes the record as "default taken".
func goweaveSelectEnd(h uint64, casi int, nsends, ncases int) {
	if h == 0 {
		return
	}
	gp := getg()
	if gp.goweave.rec == h {
		gp.goweave.rec, gp.goweave.fam = 0, 0
		goweaveFinish(h, goweaveNextStamp(), 0, 0, 0)
	}
	if casi >= 0 {
		goweaveRec(h).a = uint64(goweaveSourceCase(casi, nsends, ncases))
	}
}

// goweaveSelectNBPre is the pre hook of selectnbsend/selectnbrecv, the
// compiled form of a select with one case and a default. outcome is -1
// (run the operation), or what a schedule's select preference decided: 0
// not selected, 1 selected, 3 selected and a value received.
func goweaveSelectNBPre(c *hchan, elem unsafe.Pointer, recv, valueUsed bool, pc uintptr) (h uint64, outcome int) {
	if !goweaveOn {
		return 0, -1
	}
	pos := goweavePosOf(pc)
	if pos == 0 {
		return 0, -1
	}
	return goweaveSelectNBPreAt(c, elem, recv, valueUsed, pos)
}

// goweaveSelectNBPreAt is goweaveSelectNBPre at user position pos.
func goweaveSelectNBPreAt(c *hchan, elem unsafe.Pointer, recv, valueUsed bool, pos uint32) (h uint64, outcome int) {
	gp := getg()
	goweaveBefore(gp, goweaveKSelect, pos)
	h = goweaveSelectNBOpen(gp, pos, c, recv, valueUsed)
	if goweaveSchedOn {
		return h, goweaveSelectNBPrefer(gp, pos, c, elem, recv)
	}
	return h, -1
}

func goweaveSelectNBOpen(gp *g, pos uint32, c *hchan, recv, valueUsed bool) uint64 {
	h, pre := goweaveReserve(2)
	if h == 0 {
		return 0
	}
	e := goweaveRec(h)
	e.kind = goweaveKSelect
	e.aux = 1
	e.flags = goweaveFNonBlocking
	if gp.goweave.lib {
		e.flags |= goweaveFInternal
		gp.goweave.lib = false
	}
	e.pos = pos
	e.g = gp.goid
	e.a = goweaveNone
	e.pre = pre
	ce := goweaveRec(h + 1)
	ce.kind = goweaveKSelectCase
	ce.pos = pos
	ce.g = e.g
	ce.pre = e.pre
	ce.a = 1
	fam := uint8(goweaveFamSend)
	if recv {
		ce.a, fam = 2, goweaveFamRecv
		if valueUsed && (c == nil || c.elemsize != 0) {
			ce.flags = goweaveFValueUsed
		}
	}
	if c != nil {
		ce.obj = c.goweave.id
	}
	gp.goweave.last = h + 1
	gp.goweave.rec, gp.goweave.fam = h, fam
	return h
}

// goweaveSelectNBEnd completes a one-case select: selected reports whether
// the case ran; a receive that ran without a transfer saw a closed channel
// on the lock-free fast path.
func goweaveSelectNBEnd(h uint64, selected bool) {
	if h == 0 {
		return
	}
	gp := getg()
	if gp.goweave.rec == h {
		gp.goweave.rec, gp.goweave.fam = 0, 0
		var flags uint8
		if selected {
			flags = goweaveFClosed | goweaveFSuccess
		}
		goweaveFinish(h, goweaveNextStamp(), 0, 0, flags)
	}
	if selected {
		goweaveRec(h).a = 0
	}
}

// goweaveSelf takes the current goroutine's open record if the entry point
// fam opened it.
func goweaveSelf(fam uint8) uint64 {
	gp := getg()
	h := gp.goweave.rec
	if h == 0 || gp.goweave.fam != fam {
		return 0
	}
	gp.goweave.rec, gp.goweave.fam = 0, 0
	return h
}

// goweavePeer takes the open record of the parked goroutine of sg.
func goweavePeer(sg *sudog) uint64 {
	gp := sg.g
	h := gp.goweave.rec
	if h != 0 {
		gp.goweave.rec, gp.goweave.fam = 0, 0
	}
	return h
}

// goweaveFinish completes record h.
func goweaveFinish(h, post, seq, fill uint64, flags uint8) {
	e := goweaveRec(h)
	e.post = post
	switch e.kind {
	case goweaveKChanSend, goweaveKChanRecv:
		e.flags |= flags &^ goweaveFSuccess // success is a select's flag
		e.a, e.b = seq, fill
	case goweaveKSelect:
		e.flags |= flags
		e.b = seq
		for i := uint64(1); i <= uint64(e.aux); i++ {
			goweaveRec(h + i).post = post
		}
	}
}

// goweaveChanHandoff: the current goroutine (sender) gives its value to the
// parked receiver sg, or (sender == false) the current goroutine (receiver)
// takes the value of the parked sender sg. c is locked.
func goweaveChanHandoff(c *hchan, sg *sudog, sender bool, fam uint8) {
	if !goweaveOn || c.goweave.id == 0 { // id 0: a select preference's private channel
		return
	}
	c.goweave.sends++
	c.goweave.recvs++
	if goweaveStuck.on {
		goweaveHandChan(c, sg, sender) // zz_goweave_handoff.go
	}
	if sender && c.timer != nil {
		goweaveTimerFire(c, c.goweave.sends) // zz_goweave_timer.go
	}
	self := goweaveSelf(fam)
	peer := goweavePeer(sg)
	if self == 0 && peer == 0 {
		return
	}
	send, recv := self, peer
	if !sender {
		send, recv = peer, self
	}
	s := goweaveNextStamps(2)
	fill := uint64(c.qcount)
	if send != 0 {
		goweaveFinish(send, s-1, c.goweave.sends, fill, goweaveFSuccess)
	}
	if recv != 0 {
		goweaveFinish(recv, s, c.goweave.recvs, fill, goweaveFSuccess)
	}
}

// goweaveChanBuffered: the current goroutine put a value into (send) or took
// one from the buffer of c; qcount is already updated. c is locked.
func goweaveChanBuffered(c *hchan, send bool, fam uint8) {
	if !goweaveOn || c.goweave.id == 0 { // id 0: a select preference's private channel
		return
	}
	seq := &c.goweave.recvs
	if send {
		seq = &c.goweave.sends
	}
	*seq++
	if goweaveStuck.on { // zz_goweave_handoff.go
		if send {
			goweaveTagSend(c, getg())
		} else if c.goweave.tagSeq != 0 {
			goweaveTagRecv(c, getg())
		}
	}
	if send && c.timer != nil {
		goweaveTimerFire(c, *seq) // zz_goweave_timer.go
	}
	if self := goweaveSelf(fam); self != 0 {
		goweaveFinish(self, goweaveNextStamp(), *seq, uint64(c.qcount), goweaveFSuccess)
	}
}

// goweaveChanClosed: the current goroutine's operation on c found it closed:
// a receive gets the zero value (a completed communication for a select), a
// send panics.
func goweaveChanClosed(c *hchan, send bool, fam uint8) {
	if !goweaveOn || c.goweave.id == 0 { // id 0: a select preference's private channel
		return
	}
	if self := goweaveSelf(fam); self != 0 {
		goweaveFinish(self, goweaveNextStamp(), 0, uint64(c.qcount), goweaveClosedFlags(send))
	}
}

func goweaveClosedFlags(send bool) uint8 {
	if send {
		return goweaveFClosed
	}
	return goweaveFClosed | goweaveFSuccess
}

// goweaveChanClosePre opens the record of close(c).
func goweaveChanClosePre(c *hchan, pc uintptr) uint64 {
	if !goweaveOn {
		return 0
	}
	pos := goweavePosOf(pc)
	if pos == 0 {
		return 0
	}
	gp := getg()
	goweaveBefore(gp, goweaveKChanClose, pos)
	var obj uint64
	var flags uint8
	if c == nil {
		flags = goweaveFNilChan
	} else {
		obj = c.goweave.id
	}
	return goweaveOpen(gp, goweaveKChanClose, flags, pos, obj)
}

// goweaveChanCloseDone completes close(c); flags has goweaveFClosed when c
// was already closed (the close panics).
func goweaveChanCloseDone(h uint64, flags uint8) {
	if h == 0 {
		return
	}
	e := goweaveRec(h)
	e.post = goweaveNextStamp()
	e.flags |= flags
}

// goweaveChanWokenByClose completes the record of a goroutine that close
// releases from c's queues. c is locked.
func goweaveChanWokenByClose(c *hchan, sg *sudog, send bool) {
	if !goweaveOn || c.goweave.id == 0 { // id 0: a select preference's private channel
		return
	}
	if peer := goweavePeer(sg); peer != 0 {
		goweaveFinish(peer, goweaveNextStamp(), 0, uint64(c.qcount), goweaveClosedFlags(send))
	}
}
