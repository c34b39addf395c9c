package analysis

import (
	"slices"
	"unsafe"

	"github.com/goweave/goweave/analysis/trace"
)

// mutexState is the engine's state of one Mutex or RWMutex.
type mutexState struct {
	obj        uint64
	wrel       published // clock of the last Unlock (strong only)
	rrel       vclock    // merged clocks of all RUnlocks
	writer     int32     // goroutine holding the write lock; -1 none
	writerEv   int32
	readers    readerSet
	lastUnlock int32
	lastAcq    byGoroutine[acqInfo] // per goroutine that acquired it: its latest acquisition (any mode)
	lastWrite  byGoroutine[int32]   // per goroutine that requested it for writing: its latest request
	recursive  []int32              // recursive RLocks, for writers that come later
	outer      []int32              // the read lock each of them already held
	pairHits   int
	front      *acqFrontier // of the lastAcq scans (mutex_scan.go)
	writeAcqs  int          // entries of lastAcq that are write acquisitions (read requests scan only those)
}

type heldRead struct{ g, ev int32 }

// acqInfo is an acquisition, with its epoch, kind and position (scans read them here,
// not from the event).
type acqInfo struct {
	ev   int32
	ep   uint32
	kind trace.Kind
	pos  uint32 // of the acquisition, for pair keys
}

// byGoroutine maps the goroutines that used an object to a value, sorted by goroutine:
// memory follows those goroutines (not all of the trace's), and scans visit them in
// goroutine order. Once they are a sixteenth of the trace's goroutines or more, a table
// indexed by goroutine finds them without the binary search (a few goroutines sharing
// every mutex: the search was a visible cost of each lock); it costs at most 64 bytes per
// goroutine in gs.
type byGoroutine[T any] struct {
	gs   []int32
	vals []T
	at   []int32 // per goroutine of the trace: its index in gs + 1 (0: absent); nil: search
}

func (b *byGoroutine[T]) index(g int32) (int, bool) {
	if b.at != nil {
		if k := b.at[g]; k > 0 {
			return int(k - 1), true
		}
	}
	if n := len(b.gs); n == 0 || b.gs[n-1] < g {
		return n, false
	}
	return slices.BinarySearch(b.gs, g)
}

func (b *byGoroutine[T]) get(g int32) (T, bool) {
	if i, ok := b.index(g); ok {
		return b.vals[i], true
	}
	var zero T
	return zero, false
}

// set sets g's value to v (g < ng, the trace's goroutine count) and returns the bytes it
// added to the map (0 when g was in it).
func (b *byGoroutine[T]) set(g int32, v T, ng int) int64 {
	i, ok := b.index(g)
	if ok {
		b.vals[i] = v
		return 0
	}
	b.gs = slices.Insert(b.gs, i, g)
	b.vals = slices.Insert(b.vals, i, v)
	added := 4 + int64(unsafe.Sizeof(v))
	switch {
	case b.at != nil:
		for k := i; k < len(b.gs); k++ {
			b.at[b.gs[k]] = int32(k + 1)
		}
	case 16*len(b.gs) >= ng:
		b.at = make([]int32, ng)
		for k, h := range b.gs {
			b.at[h] = int32(k + 1)
		}
		added += 4 * int64(ng)
	}
	return added
}

// Rule Lock (write): the acquisition happens after the last Unlock and after every RUnlock
// so far (strong clock only: the weak clock ignores mutex edges).
func (e *engine) lock(i int32, ev *trace.Event) { e.blockingLock(i, false) }

// Rule RLock: a read acquisition happens after the last write Unlock.
func (e *engine) rlock(i int32, ev *trace.Event) { e.blockingLock(i, true) }

func (e *engine) blockingLock(i int32, read bool) {
	g := e.tick(i)
	x := e.objOf[i]
	if x < 0 {
		return
	}
	e.lockRequest(i, g, x, read, true)
	e.acquire(i, g, x, read)
}

// Rule TryLock: a TryLock that acquired is a Lock; a failed one only ticks (it waited for
// nothing and learned nothing).
func (e *engine) tryLock(i int32, ev *trace.Event) { e.tryAcquire(i, ev, false) }

// Rule TryRLock: like RLock when it acquired; a failed one only ticks.
func (e *engine) tryRLock(i int32, ev *trace.Event) { e.tryAcquire(i, ev, true) }

func (e *engine) tryAcquire(i int32, ev *trace.Event, read bool) {
	g := e.tick(i)
	x := e.objOf[i]
	if x < 0 {
		return
	}
	if ev.Flags.Has(trace.FlagSuccess) {
		e.acquire(i, g, x, read)
		return
	}
	e.tryFailed(i, g, x)
}

// Rule Unlock: publishes the unlocker's clock as the mutex's release clock (overwriting: the
// next Lock acquires after this one, which already happened after the previous ones).
func (e *engine) unlock(i int32, ev *trace.Event) {
	g := e.tick(i)
	x := e.objOf[i]
	if x < 0 {
		return
	}
	m := &e.mutexes[x]
	if m.writer < 0 {
		e.f.unlockOfUnlocked = append(e.f.unlockOfUnlocked, evPair{i, m.lastUnlock})
	} else {
		e.release(i, g, m.writer, m.writerEv, x, false)
		m.writer = -1
	}
	e.ck.publish(&m.wrel, &e.vc[g], nil)
	m.lastUnlock = i
}

// Rule RUnlock: MERGES the reader's clock into the read-release clock (readers release
// concurrently; a writer that acquires next happens after all of them, so overwriting
// would lose the earlier readers).
func (e *engine) runlock(i int32, ev *trace.Event) {
	g := e.tick(i)
	x := e.objOf[i]
	if x < 0 {
		return
	}
	m := &e.mutexes[x]
	// g's newest read lock, else one handed over to g (rule_handoff.go)
	k := m.readers.newestOf(g)
	if k < 0 {
		k = e.handoffReader(&m.readers, g)
	}
	if k >= 0 {
		r := m.readers.removeAt(k)
		e.release(i, g, r.g, r.ev, x, true)
	} else {
		e.f.unlockOfUnlocked = append(e.f.unlockOfUnlocked, evPair{i, m.lastUnlock})
	}
	e.ck.join(&m.rrel, &e.vc[g])
	m.lastUnlock = i
}

func (e *engine) acquire(i, g, x int32, read bool) {
	m := &e.mutexes[x]
	e.acquire1(g, &m.wrel)
	if !read && m.rrel.root != nil {
		e.ck.join(&e.vc[g], &m.rrel)
	}
	if read {
		m.readers.add(g, i)
	} else {
		m.writer, m.writerEv = g, i
	}
	if old, ok := m.lastAcq.get(g); ok && isWriteAcq(old.kind) {
		m.writeAcqs--
	}
	kind := e.t.Events[i].Kind
	if isWriteAcq(kind) {
		m.writeAcqs++
	}
	e.extra += m.lastAcq.set(g, acqInfo{ev: i, ep: e.r.epoch[i], kind: kind, pos: e.t.Events[i].Pos}, e.ng)
	m.acquiredBy(g)
	e.held[g] = append(e.held[g], heldLock{mutex: x, ev: i, read: read})
}

// release drops the lock acquired by acq (in goroutine holder) from the holder's lockset;
// an unlock in another goroutine that is not ordered after the acquisition could run first.
func (e *engine) release(i, g, holder, acq, x int32, read bool) {
	if holder != g && !e.hbAt(acq, g, false) {
		e.f.unorderedUnlocks = append(e.f.unorderedUnlocks, evPair{i, acq})
	}
	if holder != g {
		if e.f.handedOff == nil {
			e.f.handedOff = map[int32]bool{}
		}
		e.f.handedOff[acq] = true
	}
	h := e.held[holder]
	for j := len(h) - 1; j >= 0; j-- {
		if h[j].mutex == x && h[j].read == read {
			e.held[holder] = slices.Delete(h, j, j+1)
			return
		}
	}
}

// tryFailed records the flow pairs of a failed TryLock: acquisitions by other goroutines
// that are weakly concurrent with it could have come after it.
func (e *engine) tryFailed(i, g, x int32) {
	m := &e.mutexes[x]
	if m.pairHits >= maxHitsPerObject {
		return
	}
	for k, h := range m.lastAcq.gs {
		if a := m.lastAcq.vals[k]; h != g && a.ep > e.wvc[g].get(h) {
			m.pairHits++
			e.f.pair(e.t, PairTryLock, a.ev, i)
		}
	}
}

// lockRequest records what a blocking acquisition request means for deadlock prediction:
// a lock dependency when the goroutine already holds locks, the recursive read-locking of
// an RWMutex against concurrent writers, and lock flow pairs.
func (e *engine) lockRequest(i, g, x int32, read, completed bool) {
	m := &e.mutexes[x]
	f := e.f
	if h := e.held[g]; len(h) > 0 && len(f.deps) < maxDeps {
		// keep a few instances per (goroutine, position, lock, innermost held lock): cycles
		// are searched per site, and a hot nested lock must not cost a clock each time
		k := depKey{g: g, pos: e.t.Events[i].Pos, mutex: x, inner: h[len(h)-1].mutex, n: len(h)}
		if f.depSeen[k] < 2 || !completed {
			f.depSeen[k]++
			f.deps = append(f.deps, lockDep{ev: i, g: g, mutex: x, read: read, held: slices.Clone(h), wvc: e.snapshot(&e.wvc[g])})
		}
	}
	if read {
		if outer := m.readers.firstOf(g); outer >= 0 {
			for k, h := range m.lastWrite.gs {
				if w := m.lastWrite.vals[k]; h != g && !e.hbAt(w, g, true) {
					f.rw(e.t, rwFact{inner: i, outer: outer, writer: w})
				}
			}
			if len(m.recursive) < 64 {
				m.recursive = append(m.recursive, i)
				m.outer = append(m.outer, outer)
			}
		}
	} else {
		e.extra += m.lastWrite.set(g, i, e.ng)
		e.noteWriter(i, g, x, completed)
		for k, r := range m.recursive {
			if gr := e.r.gOf[r]; gr != g && !e.hbAt(r, g, true) {
				f.rw(e.t, rwFact{inner: r, outer: m.outer[k], writer: i})
			}
		}
	}
	if completed && m.pairHits < maxHitsPerObject {
		hits := 0
		check := func(k int, h int32) {
			if h == g {
				return
			}
			info := m.lastAcq.vals[k]
			if read && !isWriteAcq(info.kind) {
				return
			}
			if info.ep > e.wvc[g].get(h) { // a does not happen before i (weak clock)
				hits++
				m.pairHits++
				f.pairAt(PairLock, info.ev, info.pos, i, e.t.Events[i].Pos)
			}
		}
		switch {
		case read && m.writeAcqs == 0: // a read request pairs only with write acquisitions
		case e.frontierCovers(m, g):
			for _, h := range m.front.dirty {
				if k, ok := m.lastAcq.index(h); ok {
					check(k, h)
				}
			}
		default:
			for k, h := range m.lastAcq.gs {
				check(k, h)
			}
		}
		if !read && hits == 0 {
			e.setFrontier(m, g, i) // every acquisition so far happens before i
		}
	}
}

// maxDeps bounds the lock dependencies kept for cycle search.
const maxDeps = 100000

// mixedCheck: operation o of goroutine g communicates with partner p. If g holds a lock L
// that p's goroutine acquired before p (and released), and that acquisition is not ordered
// before o (weak clock: ignoring the lock itself), then g could hold L at o while p's
// goroutine waits for L before reaching p: a lock/channel deadlock.
func (e *engine) mixedCheck(o, g, p int32) {
	held := e.held[g]
	if len(held) == 0 {
		return
	}
	gp := e.r.gOf[p]
	if gp == g || gp < 0 {
		return
	}
	for _, hl := range held {
		m := &e.mutexes[hl.mutex]
		info, ok := m.lastAcq.get(gp)
		if !ok || m.writer == gp {
			continue
		}
		lh := info.ev
		if hl.read && info.kind == trace.KindRLock {
			continue // two readers do not exclude each other
		}
		if info.ep > e.wvc[g].get(gp) { // lh does not happen before (weak clock)
			k := pairKey{0, e.t.Events[o].Pos, e.t.Events[lh].Pos}
			if !e.f.mixedSeen[k] {
				e.f.mixedSeen[k] = true
				e.f.mixed = append(e.f.mixed, mixedFact{op: o, held: hl.ev, partner: p, partnerLock: lh})
			}
		}
	}
}

func (f *facts) rw(t *trace.Trace, r rwFact) {
	k := pairKey{0, t.Events[r.inner].Pos, t.Events[r.writer].Pos}
	if f.rwSeen[k] || len(f.rwRecursion) >= maxPairs {
		return
	}
	f.rwSeen[k] = true
	f.rwRecursion = append(f.rwRecursion, r)
}
