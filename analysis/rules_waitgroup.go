package analysis

import (
	"slices"

	"github.com/goweave/goweave/analysis/trace"
)

// wgState is the engine's state of one WaitGroup.
type wgState struct {
	obj     uint64
	vc, wvc vclock
	live    bool     // vc and wvc hold the group's clocks (from its first Add or Done to its last operation)
	adders  adderSet // goroutines that Add a positive delta (prepass)
	facts   *wgFacts
	last    int32
	// When the group's clocks are exactly those of goroutine owner right after its event
	// with epoch ep (one goroutine did the Adds and Dones so far, or each knew the previous
	// one's), a goroutine that knows (owner, ep) knows them: joins become copies or nothing.
	owner int32 // -1: the clocks are a join of several
	ep    uint32

	// Counted by the prepass: completed operations still to process (the clocks are
	// recycled after the last: a program makes a WaitGroup per fan-out), and completed
	// Adds and Dones, whose lists are cut from one arena.
	pending     int32
	nAdd, nDone int32

	// For the Add/Wait race (rule WgAddWait): the latest Add from a zero counter and the
	// latest Wait of each goroutine, at most maxAddWaitGoroutines each.
	zeroAdds, waits []wgOp
}

// wgOp is an Add from zero or a Wait kept for rule WgAddWait, with the locks its goroutine
// held at it (nil for most).
type wgOp struct {
	ev   int32
	held []heldLock
}

// maxAddWaitGoroutines bounds the goroutines whose Adds from zero and Waits one group keeps
// for the Add/Wait race: a group each of thousands of workers Adds to from zero would make
// the check quadratic (a race among the first ones is reported all the same).
const maxAddWaitGoroutines = 64

// wgFacts is what negative-waitgroup matching needs: every Add and Done, and for each
// Done the clock entries of the adding goroutines.
type wgFacts struct {
	obj    uint64
	adders adderSet
	adds   []int32  // events with a positive delta
	dones  []int32  // events with a negative delta
	proj   []uint32 // len(dones) x len(adders); none when noProj
	// noProj: the group has too many Adds and Dones to be matched (maxMatching), so
	// nothing reads proj: not keeping it saves len(dones) x len(adders) entries.
	noProj bool

	// Kept as the operations come, so that the detector can skip the matching of the
	// common group without reading the events again: ordered holds while every Add came
	// before every Done and happens before each of them. While it holds no Add comes
	// after a Done, so a Done checks only each adder's latest Add (lastAdd, by adder
	// index: a goroutine's epochs grow), not every Add: linear in the group's operations.
	addUnits, doneUnits int
	ordered             bool
	foreignAdd          bool     // an Add by a goroutine missing from adders (not ordered)
	lastAdd             []uint32 // epoch of each adder's latest Add (0: none yet)
}

// adderSet is the goroutines that Add to one WaitGroup, in the order of their first Add,
// with an index once there are many (a group Added to by every worker).
type adderSet struct {
	list []int32
	idx  map[int32]int32 // g -> position in list, when len(list) > adderScan
}

// adderScan is how many adders are found by scanning the list; past it, by the index.
const adderScan = 8

// index returns the position of g in the set, -1 if absent.
func (s *adderSet) index(g int32) int {
	if s.idx != nil {
		if k, ok := s.idx[g]; ok {
			return int(k)
		}
		return -1
	}
	return slices.Index(s.list, g)
}

// add puts g in the set if it is not there yet.
func (s *adderSet) add(g int32) {
	if s.index(g) >= 0 {
		return
	}
	s.list = append(s.list, g)
	switch {
	case s.idx != nil:
		s.idx[g] = int32(len(s.list) - 1)
	case len(s.list) > adderScan:
		s.idx = make(map[int32]int32, 2*len(s.list))
		for k, a := range s.list {
			s.idx[a] = int32(k)
		}
	}
}

// maxAddUnits bounds the units one Add counts for (a corrupt delta must not overflow a
// sum); a real Add of more is rare, and counting it as this many could only report a
// Done as unmatched.
const maxAddUnits = 1 << 31

// covered reports that every Done can be matched (the Adds happen before all of them and
// have enough units); false may still be covered (the detector checks).
func (wf *wgFacts) covered() bool { return wf.ordered && wf.addUnits >= wf.doneUnits }

func (w *wgState) addAdder(g int32) { w.adders.add(g) }

// Rule WgAdd / WgDone: the counter change is merged into the group's clock (a Wait that
// returns happens after every Add and Done before it).
func (e *engine) wgAdd(i int32, ev *trace.Event) {
	g := e.tick(i)
	x := e.objOf[i]
	if x < 0 {
		return
	}
	w := e.wgs.at(x)
	fresh := !w.live
	if fresh {
		w.live = true
		w.facts = e.newWgFacts(w)
		e.f.wgs = append(e.f.wgs, w.facts)
	}
	if int64(ev.B) < 0 {
		e.f.negativeWG = append(e.f.negativeWG, evPair{i, w.last})
	}
	if fresh || w.owner >= 0 && w.ep <= e.vc[g].get(w.owner) && w.ep <= e.wvc[g].get(w.owner) {
		// g's clocks contain the group's: the join is g's clocks
		e.ck.assign(&w.vc, &e.vc[g])
		e.ck.assign(&w.wvc, &e.wvc[g])
		w.owner, w.ep = g, e.vc[g].ownEp
	} else {
		e.ck.join(&w.vc, &e.vc[g])
		e.ck.join(&w.wvc, &e.wvc[g])
		w.owner = -1
	}
	if ev.Kind == trace.KindWgAdd && int64(ev.A) > 0 && ev.B == ev.A {
		e.wgAddWait(w, i, g, true)
	}
	wf := w.facts
	switch delta := int64(ev.A); {
	case delta > 0:
		wf.adds = append(wf.adds, i)
		wf.addUnits += int(min(delta, maxAddUnits))
		wf.ordered = wf.ordered && len(wf.dones) == 0
		if wf.ordered {
			if k := wf.adders.index(g); k >= 0 {
				wf.lastAdd[k] = e.r.epoch[i]
			} else {
				wf.foreignAdd = true
			}
		}
	case delta < 0:
		wf.dones = append(wf.dones, i)
		wf.doneUnits += int(min(-delta, 1<<16))
		if !wf.noProj {
			for _, a := range wf.adders.list {
				wf.proj = append(wf.proj, e.vc[g].get(a))
			}
		}
		if wf.ordered && len(wf.adds) > 0 {
			// every Add happens before this Done, as addBeforeDone will read it from proj
			wf.ordered = !wf.foreignAdd
			for k, a := range wf.adders.list {
				if !wf.ordered {
					break
				}
				wf.ordered = wf.lastAdd[k] <= e.vc[g].get(a)
			}
		}
	}
	w.last = i
	e.wgProcessed(w)
}

// Rule WgWait: a Wait that returned happens after every Add and Done merged so far.
func (e *engine) wgWait(i int32, ev *trace.Event) {
	g := e.tick(i)
	x := e.objOf[i]
	if x < 0 {
		return
	}
	w := e.wgs.at(x)
	// before the Wait learns the group's clock: what it knew when it was entered
	e.wgAddWait(w, i, g, false)
	if !w.live {
		return
	}
	if w.owner < 0 || e.vc[g].get(w.owner) < w.ep {
		e.ck.join(&e.vc[g], &w.vc)
	}
	if w.owner < 0 || e.wvc[g].get(w.owner) < w.ep {
		e.ck.join(&e.wvc[g], &w.wvc)
	}
	e.wgProcessed(w)
}

// Rule WgAddWait. sync.WaitGroup: "calls with a positive delta that occur when the counter
// is zero must happen before a Wait", and a reuse's Adds after every earlier Wait returned.
// An Add that started from a zero counter (in this run) and a Wait of another goroutine that
// neither happens before the other race on the group: the Wait can return before the Add's
// work is counted, or the Add panics ("Add called concurrently with Wait"). The race
// detector sees only one schedule of it (the Add first, then a Wait that blocks) and
// reports it inside sync with no line of the user's.
//
// Ordered is judged by the weak clock: an order made only by mutexes is this schedule's
// (the goroutine of the earlier one, delayed just before it, would have left those locks to
// the other: a context's Done and cancel share one, so a goroutine that Adds and then
// selects on ctx.Done() looked ordered before a Wait that follows cancel). Except the lock
// held at the earlier operation itself, when the other goroutine took it after: delayed
// there, the goroutine keeps the lock and the other blocks on it before its operation (an
// Add under the lock that a closer takes before it waits is the correct pattern, and so is
// an Add and a Wait both under one lock).
//
// What it cannot tell: an order the trace does not hold. gocron's Stop (at the fix of
// gocron-singleton) waits only `if s.IsRunning()`, a go.uber.org/atomic Bool that start sets
// after its Add. Were the flag not recorded, the pair would be ordered in the trace only by
// the context's lock (the run goroutine's ctx.Done() before Stop's cancel), exactly as the
// bug's pair at the parent is (the runner's ctx.Done() before Stop's cancel). The runtime
// records a dependency's atomic helper inlined into the module's code (Bool.Load, Store) at
// the module's line, so the flag orders the Add before the Wait in the weak clock and
// nothing is reported; an atomic inside a dependency's function that is not inlined into
// the module's is not recorded (docs/stdlib-hb.md), and such a pair is predicted, and refuted
// by its confirmation (held before the Add, Stop returns without waiting).
//
// Checked at the Add against the group's earlier Waits and at the Wait, before it joins the
// group's clock, against the earlier Adds from zero; one of each per goroutine is kept (the
// latest: an earlier one of the same goroutine is ordered no later).
func (e *engine) wgAddWait(w *wgState, i, g int32, add bool) {
	others, mine := &w.waits, &w.zeroAdds
	if !add {
		others, mine = &w.zeroAdds, &w.waits
	}
	for _, o := range *others {
		if e.r.gOf[o.ev] == g || e.hbAt(o.ev, g, true) {
			continue
		}
		locked := e.hbAt(o.ev, g, false)
		if locked && e.lockedAfter(o, g) {
			continue
		}
		a, wt := i, o.ev
		if !add {
			a, wt = o.ev, i
		}
		e.f.noteAddWait(addWaitPair{a, wt, locked}, e.t.Events[a].Pos, e.t.Events[wt].Pos)
	}
	var held []heldLock
	if len(e.held[g]) > 0 {
		held = slices.Clone(e.held[g])
	}
	for k, o := range *mine {
		if e.r.gOf[o.ev] == g {
			(*mine)[k] = wgOp{i, held}
			return
		}
	}
	if len(*mine) < maxAddWaitGoroutines {
		*mine = append(*mine, wgOp{i, held})
	}
}

// lockedAfter reports whether goroutine g, since o, acquired a lock that o's goroutine held at
// o (exclusively on one side at least): g waited for that critical section to end.
func (e *engine) lockedAfter(o wgOp, g int32) bool {
	for _, h := range o.held {
		acq, ok := e.mutexes[h.mutex].lastAcq.get(g)
		if ok && e.t.Events[acq.ev].Post > e.t.Events[o.ev].Post && (!h.read || isWriteAcq(acq.kind)) {
			return true
		}
	}
	return false
}

// countWg counts completed operation ev on WaitGroup w for the arenas (prepass).
func (w *wgState) countWg(ev *trace.Event) {
	if ev.Post == 0 {
		return
	}
	w.pending++
	switch delta := int64(ev.A); {
	case ev.Kind == trace.KindWgWait:
	case delta > 0:
		w.nAdd++
	case delta < 0:
		w.nDone++
	}
}

// wgArenas allocates at once the Add, Done, latest-Add and projection lists of every WaitGroup, as
// the prepass counted them; each group's first operation cuts its lists off the front.
func (e *engine) wgArenas() {
	n, proj := 0, 0
	for x := range e.wgs.len() {
		w := e.wgs.at(x)
		n += int(w.nAdd + w.nDone)
		proj += len(w.adders.list) // lastAdd
		if !w.noProj() {
			proj += int(w.nDone) * len(w.adders.list)
		}
	}
	e.wgEvents = make([]int32, n)
	if proj <= 4*len(e.t.Events)+1024 { // else (absurd counts): lists grow by appending
		e.wgProj = make([]uint32, proj)
	}
}

// noProj reports that w has too many Adds and Dones for the detector to match them
// (maxMatching): it never reads their projections.
func (w *wgState) noProj() bool { return int64(w.nAdd)*int64(w.nDone) > maxMatching }

// newWgFacts returns the facts of WaitGroup w, their lists cut from the arenas.
func (e *engine) newWgFacts(w *wgState) *wgFacts {
	if len(e.wgFactsChunk) == 0 {
		e.wgFactsChunk = make([]wgFacts, 256)
	}
	wf := &e.wgFactsChunk[0]
	e.wgFactsChunk = e.wgFactsChunk[1:]
	wf.obj, wf.adders, wf.ordered, wf.noProj = w.obj, w.adders, true, w.noProj()
	if mid, end := int(w.nAdd), int(w.nAdd+w.nDone); end <= len(e.wgEvents) {
		wf.adds = e.wgEvents[0:0:mid]
		wf.dones = e.wgEvents[mid:mid:end]
		e.wgEvents = e.wgEvents[end:]
	}
	if n := len(w.adders.list); n <= len(e.wgProj) {
		wf.lastAdd = e.wgProj[:n:n]
		e.wgProj = e.wgProj[n:]
	} else {
		wf.lastAdd = make([]uint32, n)
	}
	if end := int(w.nDone) * len(w.adders.list); !wf.noProj && end <= len(e.wgProj) {
		wf.proj = e.wgProj[0:0:end]
		e.wgProj = e.wgProj[end:]
	}
	return wf
}

// wgProcessed notes that one completed operation of w was processed; after the last,
// nothing reads w's clocks again and they are released.
func (e *engine) wgProcessed(w *wgState) {
	w.pending--
	if w.pending == 0 && w.live {
		e.ck.drop(&w.vc, -1)
		e.ck.drop(&w.wvc, -1)
		w.live = false
	}
}

// addWaitPair is an Add from a zero counter and a Wait that race (rule WgAddWait); locked:
// a lock ordered them in this run (the race is another schedule's).
type addWaitPair struct {
	add, wait int32
	locked    bool
}

// noteAddWait records an unordered Add from zero and Wait, once per pair of positions.
func (f *facts) noteAddWait(p addWaitPair, pa, pw uint32) {
	if f.addWaitSeen == nil {
		f.addWaitSeen = map[pairKey]bool{}
	}
	k := pairKey{pa: pa, pb: pw}
	if f.addWaitSeen[k] || len(f.addWait) >= maxPairs {
		return
	}
	f.addWaitSeen[k] = true
	f.addWait = append(f.addWait, p)
}
