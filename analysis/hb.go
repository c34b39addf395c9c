package analysis

import (
	"slices"
	"unsafe"

	"github.com/goweave/goweave/analysis/trace"
)

// The engine walks the events of a trace in completion (post) order and maintains two
// vector clocks per goroutine:
//
//   - the strong clock: happens-before through every primitive (spawn, channels, mutexes,
//     Once, WaitGroup, Cond);
//   - the weak clock: the same without the edges mutexes create. Two lock operations that are
//     weakly concurrent could have happened in the other order, which is what deadlock
//     prediction and lock flow mutations need (every pair of acquisitions of one mutex is
//     strongly ordered by the mutex itself).
//
// Both clocks share one counter per goroutine: each event ticks it, and the tick is the
// event's epoch. Event a happens before event b of another goroutine iff
// epoch(a) <= clock(b)[goroutine(a)].
//
// There is one rule per event kind, registered in the table below and documented beside its
// code: rules_chan.go (spawn, channels, close), rules_select.go, rules_mutex.go, rules_once.go,
// rules_waitgroup.go, rules_cond.go, rules_atomic.go, rules_timer.go. Rules also record the facts detectors need (concurrent pairs, select partners, lock
// dependencies...) while the clocks at hand are exact, so that no clock has to be kept per
// event: memory is O(events) for epochs plus the clocks, which share what they have in
// common (vclock.go): a clock costs what its goroutine or object learned that the clock it
// was copied from did not know.

// rule is the happens-before rule of one event kind.
type rule func(e *engine, i int32, ev *trace.Event)

var rules [256]rule

func init() {
	for k, r := range map[trace.Kind]rule{
		trace.KindGoSpawn:       (*engine).goSpawn,
		trace.KindGoEnd:         (*engine).goEnd,
		trace.KindChanMake:      (*engine).chanMake,
		trace.KindChanSend:      (*engine).chanSend,
		trace.KindChanRecv:      (*engine).chanRecv,
		trace.KindChanClose:     (*engine).chanClose,
		trace.KindSelect:        (*engine).selectOp,
		trace.KindLock:          (*engine).lock,
		trace.KindTryLock:       (*engine).tryLock,
		trace.KindRLock:         (*engine).rlock,
		trace.KindTryRLock:      (*engine).tryRLock,
		trace.KindUnlock:        (*engine).unlock,
		trace.KindRUnlock:       (*engine).runlock,
		trace.KindOnceDo:        (*engine).onceDo,
		trace.KindWgAdd:         (*engine).wgAdd,
		trace.KindWgDone:        (*engine).wgAdd,
		trace.KindWgWait:        (*engine).wgWait,
		trace.KindCondWait:      (*engine).condWait,
		trace.KindCondSignal:    (*engine).condSignal,
		trace.KindCondBroadcast: (*engine).condSignal,
		trace.KindAtomicLoad:    (*engine).atomicOp,
		trace.KindAtomicStore:   (*engine).atomicOp,
		trace.KindAtomicRMW:     (*engine).atomicOp,
		trace.KindTimerSet:      (*engine).timerSet,
	} {
		rules[k] = r
	}
}

type engine struct {
	t  *trace.Trace
	r  *Result
	f  *facts
	ng int

	ck       *clockArena
	vc, wvc  []vclock // per goroutine: strong and weak clock (own -1: not running)
	held     [][]heldLock
	ended    []bool
	lastUser [][4]userCache // per goroutine: the channel places it used last
	users    userTable      // (channel, class, goroutine, place) -> index in the channel's users

	objOf   []int32 // per event: index of its object in the slice of its kind; -1 none
	chans   []chanState
	chanIdx map[uint64]int32
	objects denseIndex // (id<<3 | class) -> object index + 1, for the ids it covers (prepass)

	selectSites [][]*SelectCase // f.selects by position and case index, where both are small
	mutexes     []mutexState
	onces       []onceState
	wgs         chunked[wgState]
	conds       []condState
	atomics     map[uint64]*atomicState // by address (rules_atomic.go)
	timers      map[uint64]*timerState  // by object id (rules_timer.go)

	done []bool // event already processed (the partner of an unbuffered transfer)

	rec *clockRecorder // per-event clocks, for Result.Clocks

	budget  int64           // bytes the analysis may hold (0: no bound)
	over    *BudgetError    // set when it held more: the walk stopped
	stop    <-chan struct{} // Options.Stop
	stopped bool            // stop was closed: the walk stopped
	fixed   int64           // bytes held per event, in all (the trace's included)
	extra   int64           // bytes of per-goroutine tables of objects

	// From the prepass: completed events in index order (and whether their completion
	// stamps are increasing, and the largest), and the events that never completed.
	completed  []int32
	postSorted bool
	maxPost    uint64
	blocked    []int32

	wgEvents     []int32  // arena of the WaitGroups' Add and Done lists
	wgProj       []uint32 // arena of their projections
	wgFactsChunk []wgFacts

	userHits []int32 // scratch of unorderedUsers

	chanLast  []int32    // per channel: its last completed operation in the walk (retire.go)
	condWaits [][]uint64 // per cond: the tickets of its completed Waits, sorted (retire.go)
}

// heldLock is a lock a goroutine holds.
type heldLock struct {
	mutex int32
	ev    int32 // the acquisition
	read  bool
}

// Compute runs the happens-before engine over t and returns the result without running
// detectors (Analyze does both). It has no memory budget (ComputeWith has).
func Compute(t *trace.Trace) *Result {
	e := newEngine(t)
	e.run()
	return e.r
}

func newEngine(t *trace.Trace) *engine {
	e := &engine{t: t, r: &Result{Trace: t}}
	e.r.eng = e
	e.f = &e.r.facts
	e.f.init()
	return e
}

func (e *engine) run() {
	t := e.t
	e.prepass()
	if e.overBudget() {
		return
	}
	ord := e.order()
	e.retirePlan(ord)
	for n, i := range ord {
		if n%budgetCheckEvery == 0 && e.overBudget() {
			return
		}
		if n%prefetchBatch == 0 && n+prefetchAhead < len(ord) {
			e.prefetchUsers(ord[n+prefetchAhead : min(n+prefetchAhead+prefetchBatch, len(ord))])
		}
		if !e.done[i] {
			e.step(i, &t.Events[i])
		}
		e.retireAfter(i)
	}
	e.finishBlocked()
}

// step applies the rule of event i.
func (e *engine) step(i int32, ev *trace.Event) {
	g := e.r.gOf[i]
	if g < 0 {
		if ev.G == 0 {
			e.timerEvent(i, ev) // a timer's fire (rules_timer.go)
		}
		return
	}
	if rl := rules[ev.Kind]; rl != nil {
		rl(e, i, ev)
	} else {
		e.tick(i) // a kind of a later format version: program order only
	}
	if e.rec != nil {
		e.record(i, g)
	}
	if ev.Kind == trace.KindGoEnd {
		e.endClocks(g)
	}
}

// prefetchAhead is how many events ahead of the analysis the channel-user slots are
// prefetched: far enough for a cache miss to arrive, near enough to stay in the cache.
// They are prefetched prefetchBatch events at a time, in one call (an assembly call is
// not inlined: one per event was a visible cost).
const (
	prefetchAhead = 16
	prefetchBatch = 8
)

// prefetchUsers prefetches the user-table slots that the channel operations among events
// next (at most prefetchBatch) will look up.
func (e *engine) prefetchUsers(next []int32) {
	t := &e.users
	if len(t.slots) == 0 {
		return
	}
	var slots [prefetchBatch]*userSlot
	k := 0
	for _, i := range next[:min(len(next), prefetchBatch)] {
		ev := &e.t.Events[i]
		switch ev.Kind {
		case trace.KindChanSend, trace.KindChanRecv, trace.KindSelect:
			if x := e.objOf[i]; x >= 0 {
				slots[k] = t.site(x, e.r.gOf[i], ev.Pos)
				k++
			}
		}
	}
	if k > 0 {
		prefetch(&slots, k)
	}
}

// prepass assigns dense goroutine and object indices and pairs unbuffered transfers.
func (e *engine) prepass() {
	t, r := e.t, e.r
	n := len(t.Events)
	r.gOf = make([]int32, n)
	r.epoch = make([]uint32, n)
	e.objOf = make([]int32, n)
	e.done = make([]bool, n)
	r.gIndex = map[uint64]int32{}
	// Goroutine and object ids are small counters in practice: a dense table answers most
	// lookups, the maps the rest.
	dense := uint64(2*n + 1024)
	gTable := denseIndex{limit: min(dense, 1<<20)}
	gidx := func(id uint64) int32 {
		if id == 0 {
			return -1
		}
		if g := gTable.get(id); g != 0 {
			return g - 1
		}
		if g, ok := r.gIndex[id]; ok {
			return g
		}
		g := int32(len(r.Goroutines))
		r.gIndex[id] = g
		if gTable.covers(id) {
			gTable.set(id, g+1)
		}
		r.Goroutines = append(r.Goroutines, GoroutineInfo{ID: id, Spawn: -1, Blocked: -1})
		return g
	}
	e.chanIdx = map[uint64]int32{}
	// Object ids are unique per run; keying by (class, id) keeps a corrupt trace that uses
	// one id as, say, a channel and a mutex from mixing up the two states.
	objIdx := map[uint64]int32{}
	e.objects = denseIndex{limit: min(dense, 1<<22)}
	objTable := &e.objects
	obj := func(kind trace.Kind, id uint64, cap uint64) int32 {
		class := objClass(kind)
		if id == 0 || class == 0 {
			return -1
		}
		key := id<<3 | uint64(class)
		inTable := objTable.covers(key)
		if inTable {
			if x := objTable.get(key); x != 0 {
				return x - 1
			}
		} else if x, ok := objIdx[key]; ok { // the table is authoritative for the keys it covers
			return x
		}
		var x int32
		switch class {
		case classChan:
			x = int32(len(e.chans))
			e.chans = append(e.chans, chanState{obj: id, capacity: int(min(cap, 1<<31)), made: -1, closeEv: -1})
			e.chanIdx[id] = x
		case classMutex:
			x = int32(len(e.mutexes))
			e.mutexes = append(e.mutexes, mutexState{obj: id, writer: -1, lastUnlock: -1, rrel: vclock{own: -1}})
		case classOnce:
			x = int32(len(e.onces))
			e.onces = append(e.onces, onceState{runner: -1})
		case classWG:
			x = e.wgs.add(wgState{obj: id, last: -1, owner: -1})
		case classCond:
			x = int32(len(e.conds))
			e.conds = append(e.conds, condState{obj: id, last: -1})
		}
		if inTable {
			objTable.set(key, x+1)
		} else {
			objIdx[key] = x
		}
		return x
	}
	e.fixed = int64(n) * bytesPerEvent
	if e.rec != nil {
		e.fixed += int64(n) * int64(unsafe.Sizeof(vclock{}))
	}
	e.completed = make([]int32, 0, n)
	e.postSorted = true
	var prevPost uint64
	for i := range t.Events {
		ev := &t.Events[i]
		g := gidx(ev.G)
		r.gOf[i] = g
		e.objOf[i] = -1
		// the walk's order and the never-completed events, collected here so that no
		// other pass reads the whole event slice again
		if p := ev.Post; p != 0 {
			e.completed = append(e.completed, int32(i))
			if p < prevPost {
				e.postSorted = false
			}
			prevPost = p
			e.maxPost = max(e.maxPost, p)
		} else if g >= 0 && !ev.Flags.Has(trace.FlagNonBlocking) {
			// a select with a default never blocks: one left incomplete was stopped in
			// progress (held by a schedule, or running when the process was killed)
			e.blocked = append(e.blocked, int32(i))
		}
		switch ev.Kind {
		case trace.KindGoSpawn:
			c := gidx(ev.A)
			if c >= 0 {
				r.Goroutines[c].Spawn = i
				r.Goroutines[c].Parent = ev.G
			}
		case trace.KindSelect:
			e.fixed += int64(len(ev.Cases)) * int64(unsafe.Sizeof(trace.Case{}))
			for _, c := range ev.Cases {
				obj(trace.KindSelect, c.Obj, 0)
			}
			if ev.Post != 0 && ev.A < uint64(len(ev.Cases)) && ev.Flags.Has(trace.FlagSuccess) {
				c := ev.Cases[ev.A]
				if x := obj(trace.KindSelect, c.Obj, 0); x >= 0 {
					e.objOf[i] = x
					e.chans[x].count(c.Send, ev.B, int32(i))
				}
			}
		default:
			x := obj(ev.Kind, ev.Obj, ev.C)
			e.objOf[i] = x
			if x < 0 {
				continue
			}
			switch ev.Kind {
			case trace.KindChanMake:
				e.chans[x].made = int32(i)
				e.chans[x].lib = ev.Flags.Has(trace.FlagInternal)
				e.chans[x].capacity = int(min(ev.A, 1<<31))
			case trace.KindTimerFire:
				e.chans[x].countFire(ev.A, int32(i))
			case trace.KindChanSend, trace.KindChanRecv:
				ch := &e.chans[x]
				if ev.C != 0 {
					ch.capacity = int(min(ev.C, 1<<31))
				}
				if ev.Post != 0 && !ev.Flags.Has(trace.FlagClosed) {
					ch.count(ev.Kind == trace.KindChanSend, ev.A, int32(i))
				}
			case trace.KindCondWait:
				if g >= 0 {
					e.condWaitTicket(x, ev)
				}
			case trace.KindOnceDo:
				if ev.Flags.Has(trace.FlagSuccess) {
					e.onces[x].runner = int32(i)
				}
			case trace.KindWgAdd, trace.KindWgDone, trace.KindWgWait:
				w := e.wgs.at(x)
				if ev.Kind == trace.KindWgAdd && int64(ev.A) > 0 && g >= 0 { // (an event outside every goroutine adds nothing)
					w.addAdder(g)
				}
				if g >= 0 {
					w.countWg(ev)
				}
			}
		}
	}
	for _, gr := range t.Goroutines {
		g := gidx(gr.ID)
		info := &r.Goroutines[g]
		info.Alive, info.Status, info.Reason = true, gr.Status, gr.WaitReason
		if info.Parent == 0 {
			info.Parent = gr.Parent
		}
	}
	e.sortCondWaits()
	e.ng = len(r.Goroutines)
	e.ck = newClockArena(e.ng)
	// Goroutine clocks start when a goroutine starts and are released when it ends.
	e.vc = make([]vclock, e.ng)
	e.wvc = make([]vclock, e.ng)
	for g := range e.vc {
		e.vc[g], e.wvc[g] = e.ck.clock(-1), e.ck.clock(-1)
	}
	e.held = make([][]heldLock, e.ng)
	e.ended = make([]bool, e.ng)
	e.lastUser = make([][4]userCache, e.ng)
	for g := range e.lastUser {
		for k := range e.lastUser[g] {
			e.lastUser[g][k].ch = -1
		}
	}
	e.selectSites = make([][]*SelectCase, len(t.Positions)+1)
	e.wgArenas()
	for x := range e.chans {
		e.chans[x].initRings()
	}
}

// chanIndex returns the index of the channel with id, like chanIdx but without hashing
// for the ids the dense object table covers.
func (e *engine) chanIndex(id uint64) (int32, bool) {
	if key := id<<3 | classChan; id < 1<<61 && e.objects.covers(key) {
		x := e.objects.get(key) - 1
		if x < 0 {
			return -1, false
		}
		if e.chans[x].obj == id {
			return x, true
		}
	}
	x, ok := e.chanIdx[id]
	return x, ok
}

// order returns the completed events sorted by completion stamp. The runtime writes events
// in slot order, which is close to completion order; stamps are unique and dense, so a
// bucket pass sorts them in linear time when they are, falling back to a sort otherwise.
func (e *engine) order() []int32 {
	out := e.completed
	if e.postSorted {
		return out
	}
	evs := e.t.Events
	if n := len(out); e.maxPost <= uint64(4*n+1024) {
		slot := make([]int32, e.maxPost+1)
		dup := false
		for _, i := range out {
			p := evs[i].Post
			if slot[p] != 0 { // duplicate stamp (corrupt trace): keep it stable via sort
				dup = true
				break
			}
			slot[p] = i + 1
		}
		if !dup {
			sorted := make([]int32, 0, n)
			for _, s := range slot {
				if s != 0 {
					sorted = append(sorted, s-1)
				}
			}
			return sorted
		}
	}
	slices.SortStableFunc(out, func(a, b int32) int {
		pa, pb := evs[a].Post, evs[b].Post
		if pa < pb {
			return -1
		}
		if pa > pb {
			return 1
		}
		return 0
	})
	return out
}

// tick starts processing event i of goroutine g: it advances g's counter and records the
// event's epoch.
func (e *engine) tick(i int32) int32 {
	g := e.r.gOf[i]
	if !e.running(g) {
		e.newClocks(g)
	}
	ep := e.vc[g].ownEp + 1
	e.vc[g].ownEp = ep
	e.wvc[g].ownEp = ep
	e.r.epoch[i] = ep
	return g
}

// running reports whether goroutine g has its clocks (it started and did not end).
func (e *engine) running(g int32) bool { return e.vc[g].own == g }

// newClocks gives goroutine g empty clocks.
func (e *engine) newClocks(g int32) {
	e.vc[g], e.wvc[g] = e.ck.clock(g), e.ck.clock(g)
}

// endClocks releases the clocks of goroutine g, which ended: nothing reads a goroutine's
// clock after its last event (what it published was copied).
func (e *engine) endClocks(g int32) {
	if e.running(g) {
		e.ck.drop(&e.vc[g], -1)
		e.ck.drop(&e.wvc[g], -1)
	}
}

// hbAt reports whether event a (already processed) happens before the current point of
// goroutine g, by the strong (weak=false) or weak clock.
func (e *engine) hbAt(a int32, g int32, weak bool) bool {
	ga := e.r.gOf[a]
	if ga == g {
		return true
	}
	if weak {
		return e.r.epoch[a] <= e.wvc[g].get(ga)
	}
	return e.r.epoch[a] <= e.vc[g].get(ga)
}

// finishBlocked gives every operation that never completed an epoch after its goroutine's
// last completed event and lets the rules record what a blocked request means (lock
// dependencies, leaks).
func (e *engine) finishBlocked() {
	evs := e.t.Events
	blocked := e.blocked
	slices.SortFunc(blocked, func(a, b int32) int {
		if evs[a].Pre < evs[b].Pre {
			return -1
		}
		if evs[a].Pre > evs[b].Pre {
			return 1
		}
		return 0
	})
	for n, i := range blocked {
		if n%budgetCheckEvery == 0 && e.overBudget() {
			return
		}
		g := e.tick(i)
		if e.rec != nil {
			e.record(i, g)
		}
		e.r.Goroutines[g].Blocked = int(i)
		e.f.blocked = append(e.f.blocked, i)
		ev := &evs[i]
		switch ev.Kind {
		case trace.KindLock, trace.KindRLock:
			if x := e.objOf[i]; x >= 0 {
				e.lockRequest(i, g, x, ev.Kind == trace.KindRLock, false)
			}
		case trace.KindChanSend, trace.KindChanRecv, trace.KindSelect:
			e.blockedChanOp(i, g, ev)
			if len(e.held[g]) > 0 {
				e.f.blockedUnderLock = append(e.f.blockedUnderLock, blockedHold{ev: i, held: slices.Clone(e.held[g])})
			}
		}
	}
	for g := range e.r.Goroutines {
		e.r.Goroutines[g].Ended = e.ended[g]
	}
	for x := range e.mutexes {
		m := &e.mutexes[x]
		if m.writer >= 0 {
			e.f.holders[m.obj] = m.writerEv
		} else if m.readers.len() > 0 {
			e.f.holders[m.obj] = m.readers.last().ev
			for _, h := range m.readers.list {
				if h.g >= 0 {
					e.f.readHolders[m.obj] = append(e.f.readHolders[m.obj], h.ev)
				}
			}
		}
	}
}

// blockedChanOp lets an operation blocked forever count as a possible partner of select
// cases: it was requested, and a select case could have served it.
func (e *engine) blockedChanOp(i, g int32, ev *trace.Event) {
	if ev.Kind == trace.KindSelect {
		e.selectCases(i, g, ev)
		return
	}
	x := e.objOf[i]
	if x < 0 {
		return
	}
	send := ev.Kind == trace.KindChanSend
	e.resolvePending(x, i, g, send)
	class := classRecvOther
	if send {
		class = classSendCase // a potential send, like a select case that was not taken
	} else {
		class = classRecvCase
	}
	e.userSeen(i, g, x, class)
}

// Object classes: which state an object id names.
const (
	classChan = iota + 1
	classMutex
	classOnce
	classWG
	classCond
)

func objClass(k trace.Kind) int {
	switch k {
	case trace.KindChanMake, trace.KindChanSend, trace.KindChanRecv, trace.KindChanClose, trace.KindSelect, trace.KindTimerFire:
		return classChan
	case trace.KindLock, trace.KindUnlock, trace.KindTryLock, trace.KindRLock, trace.KindRUnlock, trace.KindTryRLock:
		return classMutex
	case trace.KindOnceDo:
		return classOnce
	case trace.KindWgAdd, trace.KindWgDone, trace.KindWgWait:
		return classWG
	case trace.KindCondWait, trace.KindCondSignal, trace.KindCondBroadcast:
		return classCond
	}
	return 0
}
