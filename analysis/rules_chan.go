package analysis

import "github.com/goweave/goweave/analysis/trace"

// chanState is the engine's state of one channel.
type chanState struct {
	obj       uint64
	capacity  int
	made      int32   // ChanMake event; -1: made outside recorded code
	lib       bool    // made by a recorded library for the user (a context's Done, a timer's channel)
	sendBySeq []int32 // event of the k-th completed send, at k-1 (-1: unknown)
	recvBySeq []int32 // event of the k-th completed value receive

	// Buffered channels: clocks of the last sends and receives by sequence number modulo
	// the ring size (which is at most the capacity, and no larger than the op count).
	ringS, ringR []published
	// sends whose ring slot a later send took before their receive was walked (seq -> clocks):
	// a sender blocked on a full buffer is completed by the receive that frees its slot, and
	// the runtime stamps it before that receive, so in completion order send k+capacity comes
	// before receive k (see keepForReceive)
	stashS map[uint64]published

	closeEv           int32
	closeVC, closeWVC vclock

	users [numClasses][]chanUser // per class: latest op per (goroutine, position)
	// per class of a long list: per goroutine, the largest epoch among its users (nil for
	// short lists), so that a scan for users that do not happen before a clock can be
	// skipped when none can (see mayBeUnordered)
	latest   [numClasses][]uint32
	indexed  [numClasses]bool // per class: users are in the engine's userTable (busy channels)
	pending  []pendingCase    // select cases not yet known to have a partner
	pairHits int              // concurrent pairs found (bounds the scanning on hot channels)
	front    *chanFrontiers   // scans' frontiers, once a list is long (chan_frontier.go)

	fires []int32 // a timer's channel: TimerFire of the k-th value at k-1 (rules_timer.go)
}

// foreign reports whether the channel is not the user's own: made outside the recorded code,
// or by a library on the user's behalf (its partner is the library's, not in the user's code).
func (c *chanState) foreign() bool { return c.made < 0 || c.lib }

// Operation classes of chanUser.
const (
	classSend        uint8 = iota // completed send (statement or chosen select case)
	classRecvValue                // completed plain v := <-c (not comma-ok)
	classRecvOther                // completed receive that does not use the value, or comma-ok
	classSelectValue              // chosen select receive case whose value is stored (the trace
	// cannot tell case v := <-c from case v, ok := <-c, so these never count as receives of
	// a closed channel's zero value)
	classSendCase // select send case not chosen
	classRecvCase // select receive case not chosen
	numClasses
)

// Class sets scanned by the rules.
var (
	sendClasses     = []uint8{classSend, classSendCase}
	recvClasses     = []uint8{classRecvValue, classRecvOther, classSelectValue, classRecvCase}
	recvDoneClasses = []uint8{classRecvValue, classRecvOther, classSelectValue}
)

type chanUser struct {
	g   int32
	pos uint32
	ev  int32
	ep  uint32 // epoch of ev, kept here so that scans do not chase per-event arrays
}

// before reports whether u's operation happens before the current point of goroutine g
// (another goroutine), by the strong or the weak clock (hbAt without the lookups).
func (u chanUser) before(e *engine, g int32, weak bool) bool {
	if weak {
		return u.ep <= e.wvc[g].get(u.g)
	}
	return u.ep <= e.vc[g].get(u.g)
}

type pendingCase struct {
	key  selectKey
	sel  int32
	send bool
}

// count registers a completed operation with sequence number seq (prepass).
func (c *chanState) count(send bool, seq uint64, i int32) {
	if seq == 0 || seq > 1<<31 {
		return
	}
	s := &c.recvBySeq
	if send {
		s = &c.sendBySeq
	}
	if int(seq) > len(*s)+1<<20 { // a corrupt sequence number must not allocate absurdly
		return
	}
	for len(*s) < int(seq) {
		*s = appendDoubling(*s, -1)
	}
	(*s)[seq-1] = i
}

func (c *chanState) initRings() {
	if c.capacity <= 0 {
		return
	}
	ring := func(n int) []published {
		n = min(n, c.capacity)
		r := make([]published, n)
		for i := range r {
			r[i] = published{weak: true}
		}
		return r
	}
	c.ringS = ring(len(c.sendBySeq))
	c.ringR = ring(len(c.recvBySeq))
}

func bySeq(s []int32, seq uint64) int32 {
	if seq == 0 || seq > uint64(len(s)) {
		return -1
	}
	return s[seq-1]
}

// Rule GoSpawn: the child starts with the parent's clocks and its own entry at 1, a birth
// epoch: whoever learns that the child reached epoch 1 or later learned it through the child
// and so knows what the parent knew at the spawn (the engine relies on "knowing a
// goroutine's epoch means knowing its whole clock then" to skip joins).
func (e *engine) goSpawn(i int32, ev *trace.Event) {
	g := e.tick(i)
	c, ok := e.r.gIndex[ev.A]
	if !ok || c == g || e.running(c) {
		return // (a child that already ran keeps its clock)
	}
	e.newClocks(c)
	same := e.sameClocks(g)
	e.startFrom(&e.vc[c], &e.vc[g])
	if same {
		e.ck.assign(&e.wvc[c], &e.vc[c])
	} else {
		e.startFrom(&e.wvc[c], &e.wvc[g])
	}
}

// startFrom makes child (the clock of a goroutine just spawned) the parent's clock with
// its own entry at 1.
func (e *engine) startFrom(child, parent *vclock) {
	c, g, ep := child.own, parent.own, parent.ownEp
	e.ck.assign(child, parent)
	child.own, child.ownEp = c, 1
	e.ck.set(child, g, ep)
	if child.tree(c) > 1 { // (the parent knew more of the child than its birth: a corrupt trace)
		e.ck.setTree(child, c, 1)
	}
}

// Rule GoEnd: only ticks; the goroutine's clock stays for the events it published.
func (e *engine) goEnd(i int32, ev *trace.Event) {
	g := e.tick(i)
	e.ended[g] = true
}

// Rule ChanSend. A send on a closed channel panicked: no synchronization. Otherwise:
//   - unbuffered: the k-th send and the k-th receive are one rendezvous: both take the join
//     of both clocks (processed together when the first of the two comes up);
//   - buffered with capacity c: the k-th send happens after the (k-c)-th receive (the slot it
//     fills was freed by that receive); its clock is kept for the k-th receive.
func (e *engine) chanSend(i int32, ev *trace.Event) {
	g := e.tick(i)
	x := e.objOf[i]
	if x < 0 {
		return
	}
	if ev.Flags.Has(trace.FlagClosed) {
		e.f.sendOnClosed = append(e.f.sendOnClosed, evPair{i, e.chans[x].closeEv})
		return
	}
	e.send(i, g, x, ev.A, classSend)
}

// Rule ChanRecv. A receive that saw the channel closed happens after the close. Otherwise:
//   - unbuffered: rendezvous with the k-th send (see ChanSend);
//   - buffered: the k-th receive happens after the k-th send; its clock is kept for the
//     (k+c)-th send.
func (e *engine) chanRecv(i int32, ev *trace.Event) {
	g := e.tick(i)
	x := e.objOf[i]
	if x < 0 {
		return
	}
	class := classRecvOther
	if ev.Flags.Has(trace.FlagValueUsed) && !ev.Flags.Has(trace.FlagCommaOK) {
		class = classRecvValue
	}
	if ev.Flags.Has(trace.FlagClosed) {
		e.recvClosed(i, g, x, class)
		return
	}
	e.recv(i, g, x, ev.A, class)
}

// Rule ChanClose: the closer's clock is kept; receives that return because of the close join
// it. Closing a closed or nil channel panics and synchronizes nothing.
func (e *engine) chanClose(i int32, ev *trace.Event) {
	g := e.tick(i)
	if ev.Flags.Has(trace.FlagNilChan) || ev.Obj == 0 {
		e.f.closeOfNil = append(e.f.closeOfNil, i)
		return
	}
	x := e.objOf[i]
	if x < 0 {
		return
	}
	ch := &e.chans[x]
	if ev.Flags.Has(trace.FlagClosed) || ch.closeEv >= 0 {
		e.f.closeOfClosed = append(e.f.closeOfClosed, evPair{i, ch.closeEv})
		return
	}
	e.resolvePending(x, i, g, true) // a close serves receive cases
	ch.closeEv = i
	e.ck.assign(&ch.closeVC, &e.vc[g])
	e.ck.assign(&ch.closeWVC, &e.wvc[g])
	// Every send and value receive so far that is not ordered before the close races with it.
	for _, class := range []uint8{classSend, classRecvValue} {
		for _, u := range ch.users[class] {
			if u.g == g || u.before(e, g, false) {
				continue
			}
			if class == classRecvValue && e.valueBeforeClose(ch, u.ev, &e.wvc[g]) {
				continue
			}
			e.closeRace(u.ev, i, class == classSend)
		}
	}
}

// valueBeforeClose reports whether the send whose value receive r got happens before the
// close whose weak clock is closeWVC: then, in every schedule, that value is in the channel
// before it closes and r cannot see it closed (a consumer taking exactly the values a
// producer sent before closing). The weak clock ignores mutexes, so a send that a mutex
// merely ordered before the close (and that another schedule might skip) does not count.
func (e *engine) valueBeforeClose(ch *chanState, r int32, closeWVC *vclock) bool {
	s := bySeq(ch.sendBySeq, e.t.Events[r].A)
	if e.t.Events[r].Kind == trace.KindSelect {
		s = bySeq(ch.sendBySeq, e.t.Events[r].B)
	}
	if s < 0 || e.r.epoch[s] == 0 {
		return false
	}
	return e.r.epoch[s] <= closeWVC.get(e.r.gOf[s])
}

// Rule Select: the chosen case is processed as its channel operation (with the sequence
// number in b); a select that took its default case (or none) only ticks. Every case that
// was not chosen is checked for a possible partner.
func (e *engine) selectOp(i int32, ev *trace.Event) {
	g := e.tick(i)
	if e.selectSendClosed(i, ev) {
		return // it panicked at once: its cases neither waited nor could be served
	}
	e.selectCases(i, g, ev)
	x := e.objOf[i]
	if x < 0 || ev.A >= uint64(len(ev.Cases)) || !ev.Flags.Has(trace.FlagSuccess) {
		return
	}
	c := ev.Cases[ev.A]
	if c.Send {
		e.send(i, g, x, ev.B, classSend)
		return
	}
	class := classRecvOther
	if c.ValueUsed {
		class = classSelectValue
	}
	if ev.Flags.Has(trace.FlagClosed) {
		e.recvClosed(i, g, x, class)
		return
	}
	e.recv(i, g, x, ev.B, class)
}

func (e *engine) send(i, g, x int32, seq uint64, class uint8) {
	ch := &e.chans[x]
	if ch.capacity == 0 {
		if p := bySeq(ch.recvBySeq, seq); p >= 0 && !e.done[p] {
			e.rendezvous(i, g, p, x)
			return
		}
		e.before(i, g, x, true)
		e.after(i, g, x, class)
		return
	}
	if seq > uint64(ch.capacity) {
		e.freeingRecvFirst(i, ch, seq-uint64(ch.capacity))
	}
	e.before(i, g, x, true)
	if seq > uint64(ch.capacity) && len(ch.ringR) > 0 {
		if r := bySeq(ch.recvBySeq, seq-uint64(ch.capacity)); r >= 0 && e.r.epoch[r] != 0 {
			e.acquire1(g, &ch.ringR[(seq-uint64(ch.capacity)-1)%uint64(len(ch.ringR))])
		}
	}
	if len(ch.ringS) > 0 && seq > 0 {
		slot := &ch.ringS[(seq-1)%uint64(len(ch.ringS))]
		e.keepForReceive(ch, slot, seq)
		e.ck.publish(slot, &e.vc[g], &e.wvc[g])
	}
	e.after(i, g, x, class)
}

// freeingRecvFirst walks receive k, the one that freed the slot of send i, before send i
// when the runtime stamped the send's completion first: a sender blocked on a full buffer is
// completed by that receive, which stamps the sender before itself. In the walk's order the
// send would miss the receive's clocks (the k-th receive happens before the k+capacity-th
// send completes: a buffered channel used as a semaphore orders what the releaser did before
// its receive with what the woken sender does next). The receive is walked early only when
// its goroutine did nothing since it was requested (its request precedes the send's
// completion) and its own send was walked; the walk skips it when it comes. The fuzzer's
// schedules order such a receive before the send by the same conditions
// (fuzzer/mutate/effect.go, completionKeys): keep the two in step.
func (e *engine) freeingRecvFirst(i int32, ch *chanState, k uint64) {
	r := bySeq(ch.recvBySeq, k)
	if r < 0 || e.r.epoch[r] != 0 || e.done[r] || e.r.gOf[r] < 0 {
		return
	}
	evs := e.t.Events
	if evs[r].Post == 0 || evs[r].Pre >= evs[i].Post {
		return
	}
	if s := bySeq(ch.sendBySeq, k); s < 0 || e.r.epoch[s] == 0 {
		return
	}
	e.step(r, &evs[r])
	e.done[r] = true
}

// keepForReceive moves the clocks in the ring slot that send seq is about to fill to the
// channel's stash when the receive of the value they published (the slot's previous send,
// seq - ring size) is not walked yet. That happens when a sender blocked on a full buffer is
// completed by the receive that frees its slot: the runtime stamps the sender's completion
// first. Overwritten, the receive would join the later sender's clocks instead of its own
// sender's: with several producers, a send it received was then unordered with what followed
// the receive (a false send-on-closed of every value the consumer took before closing).
func (e *engine) keepForReceive(ch *chanState, slot *published, seq uint64) {
	n := uint64(len(ch.ringS))
	if seq <= n {
		return
	}
	old := seq - n
	r := bySeq(ch.recvBySeq, old)
	if r < 0 || e.r.epoch[r] != 0 {
		return // nobody will read it, or its receive has read it
	}
	if ch.stashS == nil {
		ch.stashS = make(map[uint64]published)
	}
	ch.stashS[old] = *slot
	*slot = published{weak: slot.weak}
}

func (e *engine) recv(i, g, x int32, seq uint64, class uint8) {
	ch := &e.chans[x]
	if ch.capacity == 0 {
		if p := bySeq(ch.sendBySeq, seq); p >= 0 && !e.done[p] {
			e.rendezvous(p, e.r.gOf[p], i, x)
			return
		}
		e.before(i, g, x, false)
		if ch.fires != nil {
			e.timerRecv(g, ch, seq)
		}
		e.after(i, g, x, class)
		return
	}
	e.before(i, g, x, false)
	if ch.fires != nil {
		e.timerRecv(g, ch, seq)
	}
	if s := bySeq(ch.sendBySeq, seq); s >= 0 && e.r.epoch[s] != 0 && len(ch.ringS) > 0 {
		e.mixedCheck(i, g, s)
		if p, ok := ch.stashS[seq]; ok {
			e.acquire1(g, &p)
			e.ck.drop(&p.vc, -1)
			e.ck.drop(&p.wvc, -1)
			delete(ch.stashS, seq)
		} else {
			e.acquire1(g, &ch.ringS[(seq-1)%uint64(len(ch.ringS))])
		}
	}
	if len(ch.ringR) > 0 && seq > 0 {
		e.ck.publish(&ch.ringR[(seq-1)%uint64(len(ch.ringR))], &e.vc[g], &e.wvc[g])
	}
	e.after(i, g, x, class)
}

// rendezvous processes the unbuffered transfer of send s and receive r together. The one of
// the two that was not yet processed is ticked here and skipped when the walk reaches it.
func (e *engine) rendezvous(s, gs, r, x int32) {
	gr := e.r.gOf[r]
	other := r
	if e.r.epoch[s] == 0 {
		other = s
	}
	if gs < 0 || gr < 0 {
		return
	}
	e.tick(other)
	e.done[other] = true
	evs := e.t.Events
	if evs[other].Kind == trace.KindSelect {
		e.selectCases(other, e.r.gOf[other], &evs[other])
	}
	e.before(s, gs, x, true)
	e.before(r, gr, x, false)
	e.mixedCheck(s, gs, r)
	e.mixedCheck(r, gr, s)
	if e.rec != nil {
		e.record(s, gs) // the send's clock before the rendezvous: it happens before the receive, not after
	}
	if gs != gr {
		same := e.sameClocks(gs) && e.sameClocks(gr)
		e.exchange(&e.vc[gs], &e.vc[gr])
		if same {
			e.ck.assign(&e.wvc[gs], &e.vc[gs])
			e.ck.assign(&e.wvc[gr], &e.vc[gr])
		} else {
			e.exchange(&e.wvc[gs], &e.wvc[gr])
		}
	}
	e.after(s, gs, x, classSend)
	e.after(r, gr, x, e.recvClass(r))
	if e.rec != nil {
		e.record(r, gr)
	}
}

func (e *engine) recvClass(i int32) uint8 {
	ev := &e.t.Events[i]
	if ev.Kind == trace.KindSelect {
		if ev.A < uint64(len(ev.Cases)) && ev.Cases[ev.A].ValueUsed {
			return classSelectValue
		}
		return classRecvOther
	}
	if ev.Flags.Has(trace.FlagValueUsed) && !ev.Flags.Has(trace.FlagCommaOK) {
		return classRecvValue
	}
	return classRecvOther
}

// recvClosed handles a receive that returned because the channel is closed: it happens
// after the close.
func (e *engine) recvClosed(i, g, x int32, class uint8) {
	ch := &e.chans[x]
	e.before(i, g, x, false)
	if ch.closeEv >= 0 {
		e.ck.join(&e.vc[g], &ch.closeVC)
		e.ck.join(&e.wvc[g], &ch.closeWVC)
	}
	if class == classRecvValue {
		e.f.recvOnClosed = append(e.f.recvOnClosed, evPair{i, ch.closeEv})
	}
	e.userSeen(i, g, x, classRecvOther)
}

// before records the facts that need the clock of operation i before it synchronizes:
// same-direction flow pairs and the selects it could have served.
func (e *engine) before(i, g, x int32, send bool) {
	ch := &e.chans[x]
	if ch.pairHits < maxHitsPerObject {
		kind, classes := PairRecv, recvDoneClasses
		if send {
			kind, classes = PairSend, []uint8{classSend}
		}
		pos := e.t.Events[i].Pos
		for _, class := range classes {
			hits := e.unorderedUsers(ch, class, g)
			for _, k := range hits { // users that do not happen before i
				u := &ch.users[class][k]
				ch.pairHits++
				e.f.pairAt(kind, u.ev, u.pos, i, pos) // u.pos is u.ev's position
			}
			if len(hits) == 0 {
				e.advanceFrontier(ch, class, g, i) // i's clock before it synchronizes
			}
		}
	}
	e.resolvePending(x, i, g, send)
}

// maxHitsPerObject bounds the pair scanning on one hot object.
const maxHitsPerObject = 256

// after records the facts that need the clock of operation i after it synchronized.
func (e *engine) after(i, g, x int32, class uint8) {
	ch := &e.chans[x]
	if ch.closeEv >= 0 && class == classRecvValue {
		// a value received after the close in the run, yet not ordered after it
		if !e.hbAt(ch.closeEv, g, false) && !e.valueBeforeClose(ch, i, &ch.closeWVC) {
			e.closeRace(i, ch.closeEv, false)
		}
	}
	if class == classRecvValue && ch.pairHits < maxHitsPerObject {
		for _, k := range e.unorderedUsers(ch, classRecvValue, g) { // users that do not happen before i
			ch.pairHits++
			e.f.concRecv(e.t, ch.users[classRecvValue][k].ev, i)
		}
	}
	e.userSeen(i, g, x, class)
}

func (e *engine) userSeen(i, g, x int32, class uint8) {
	ch := &e.chans[x]
	pos := e.t.Events[i].Pos
	// the common case: the same goroutine at one of the places it used last
	cache := &e.lastUser[g]
	ep := e.r.epoch[i]
	for _, c := range cache {
		if c.ch == x && c.pos == pos && c.class == class {
			u := &ch.users[class][c.idx]
			u.ev, u.ep = i, ep
			ch.userUpdated(class, c.idx)
			if l := ch.latest[class]; l != nil {
				l[g] = max(l[g], ep)
			}
			return
		}
	}
	list := ch.users[class]
	j := int32(-1)
	if ch.indexed[class] {
		j = e.users.get(x, class, g, pos)
	} else {
		for k := range list { // few users: a scan beats hashing
			if list[k].g == g && list[k].pos == pos {
				j = int32(k)
				break
			}
		}
	}
	if j < 0 {
		j = int32(len(list))
		ch.users[class] = appendDoubling(list, chanUser{g: g, pos: pos})
		if ch.indexed[class] {
			e.users.put(x, class, g, pos, j)
		} else if len(ch.users[class]) >= 8 && uint32(x) <= maxIndexedChan {
			// the channel got busy: index its users by (goroutine, place)
			for n, u := range ch.users[class] {
				e.users.put(x, class, u.g, u.pos, int32(n))
			}
			ch.indexed[class] = true
		}
	}
	u := &ch.users[class][j]
	u.ev, u.ep = i, ep
	ch.userUpdated(class, j)
	if l := ch.latest[class]; l != nil {
		l[g] = max(l[g], ep)
	} else if len(ch.users[class]) > 2*e.ng {
		e.extra += 4 * int64(e.ng)
		ch.trackLatest(class, e.ng)
	}
	copy(cache[1:], cache[:len(cache)-1])
	cache[0] = userCache{ch: x, pos: pos, class: class, idx: j}
}

// trackLatest starts keeping the latest epochs of the users of class (a list long
// enough that scanning it costs more than checking one entry per goroutine).
func (ch *chanState) trackLatest(class uint8, ng int) {
	l := make([]uint32, ng)
	for _, u := range ch.users[class] {
		l[u.g] = max(l[u.g], u.ep)
	}
	ch.latest[class] = l
}

// mayBeUnordered reports whether some user of class in another goroutine than g might not
// happen before the point of g whose (strong or weak) clock is vc. When it reports false,
// a scan of the list for such users would find none.
func (ch *chanState) mayBeUnordered(class uint8, g int32, vc *vclock) bool {
	l := ch.latest[class]
	if l == nil {
		return true
	}
	for k, ep := range l {
		if ep != 0 && int32(k) != g && ep > vc.tree(int32(k)) {
			return true
		}
	}
	return false
}

func (e *engine) closeRace(op, cl int32, send bool) {
	f := e.f
	k := pairKey{0, e.t.Events[op].Pos, e.t.Events[cl].Pos}
	if f.closeRaceSeen[k] || len(f.closeRaces) >= maxPairs {
		return
	}
	f.closeRaceSeen[k] = true
	f.closeRaces = append(f.closeRaces, closeRace{op: op, close: cl, send: send})
}

func (f *facts) pair(t *trace.Trace, kind PairKind, a, b int32) {
	f.pairAt(kind, a, t.Events[a].Pos, b, t.Events[b].Pos)
}

// pairAt is pair for callers that know the positions pa of a and pb of b (reading them
// from the events is a cache miss for an old event).
func (f *facts) pairAt(kind PairKind, a int32, pa uint32, b int32, pb uint32) {
	k := pairKey{pairCode(kind), pa, pb}
	if f.pairSeen[k] || len(f.pairs) >= maxPairs {
		return
	}
	f.pairSeen[k] = true
	f.pairs = append(f.pairs, Pair{Kind: kind, First: int(a), Second: int(b)})
}

func (f *facts) concRecv(t *trace.Trace, a, b int32) {
	k := pairKey{0, t.Events[a].Pos, t.Events[b].Pos}
	if f.concRecvSeen[k] || len(f.concRecvs) >= maxPairs {
		return
	}
	f.concRecvSeen[k] = true
	f.concRecvs = append(f.concRecvs, Pair{Kind: PairRecv, First: int(a), Second: int(b)})
}

type userCache struct {
	ch    int32
	pos   uint32
	class uint8
	idx   int32
}

// exchange gives both clocks of a rendezvous (goroutine clocks) their join. Both sides
// just ticked, so each lacks the other's newest epoch; when one already knew the other's
// previous epoch it knew everything else, and only that entry changes.
func (e *engine) exchange(a, b *vclock) {
	if al, bl := e.ck.soleLeaves(a, b); al != nil {
		exchangeLeaves(a, b, al, bl)
		return
	}
	ga, gb := a.own, b.own
	aKnowsB := a.tree(gb)+1 >= b.ownEp
	bKnowsA := b.tree(ga)+1 >= a.ownEp
	switch {
	case aKnowsB && bKnowsA:
		e.ck.set(a, gb, b.ownEp)
		e.ck.set(b, ga, a.ownEp)
	case aKnowsB: // b is behind: a's knowledge (plus b's own entry) is the join
		e.copyKnowing(b, a)
	case bKnowsA:
		e.copyKnowing(a, b)
	default:
		e.ck.join(a, b)
		e.copyKnowing(b, a)
	}
}

// exchangeLeaves is exchange for one-leaf clocks whose leaves only they hold: the same
// changes made in place, as on dense vectors (the rendezvous is a channel hand-off, the
// most common synchronization of small programs).
func exchangeLeaves(a, b *vclock, al, bl *leaf) {
	ga, gb := a.own&(leafN-1), b.own&(leafN-1)
	aKnowsB := al.v[gb]+1 >= b.ownEp
	bKnowsA := bl.v[ga]+1 >= a.ownEp
	switch {
	case aKnowsB && bKnowsA:
	case aKnowsB:
		bl.v = al.v
	case bKnowsA:
		al.v = bl.v
	default:
		a.ownEp = max(a.ownEp, bl.v[ga])
		join(al.v[:], bl.v[:])
		bl.v = al.v
	}
	al.v[gb] = b.ownEp
	bl.v[ga] = a.ownEp
}

// copyKnowing makes goroutine clock dst the clock src (of another goroutine), which knows
// everything dst does except dst's own entry, and tells src dst's own entry.
func (e *engine) copyKnowing(dst, src *vclock) {
	own, ep := dst.own, dst.ownEp
	e.ck.assign(dst, src)
	dst.own, dst.ownEp = own, ep
	e.ck.set(dst, src.own, src.ownEp)
	e.ck.set(src, own, ep)
}
