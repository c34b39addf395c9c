package analysis

import (
	"slices"

	"github.com/goweave/goweave/analysis/trace"
)

// Read-read edges of a lock order cycle. Go's RWMutex blocks a new RLock while a writer's
// Lock is pending ("If any goroutine calls Lock while the lock is already held by one or
// more readers, concurrent calls to RLock will block until the writer has acquired (and
// released) the lock"), so a goroutine requesting RLock of M can wait for a goroutine that
// read-holds M, through a third goroutine's Lock of M pending between the two: the writer
// waits for the reader, the new reader for the writer. A cycle of lock dependencies with
// such an edge deadlocks only if that writer can be pending at once: a Lock of M in a
// goroutine outside the cycle, weakly concurrent with every request of the cycle (neither
// before nor after one of them, ignoring the mutexes' own ordering: the cycle's goroutines
// block at their requests, and a pending writer does nothing after its Lock), holding no
// lock a member of the cycle holds in a conflicting mode, and not holding M itself. Two
// read-read edges on different mutexes need two such writers in different goroutines
// (a goroutine waits for one lock at a time). Without a writer, two readers never wait for
// each other, and the cycle is no deadlock.

// maxWriters bounds the write requests on RWMutexes kept for read-read edges, and
// maxWriterChecks the writers looked at for the cycles of one trace (each check compares
// clocks with every member of a cycle).
const (
	maxWriters      = 20000
	maxWriterChecks = 1 << 20
)

// noteWriter keeps write request i of goroutine g on RWMutex x, with its held locks and
// weak clock, a few per (goroutine, position, mutex); a request that never completed (its
// goroutine blocked in it) is always kept.
func (e *engine) noteWriter(i, g, x int32, completed bool) {
	f := e.f
	if !e.t.Events[i].Flags.Has(trace.FlagRW) || len(f.writers) >= maxWriters {
		return
	}
	k := depKey{g: g, pos: e.t.Events[i].Pos, mutex: x, inner: -1}
	if f.writerSeen[k] >= 2 && completed {
		return
	}
	f.writerSeen[k]++
	if f.writersOf == nil {
		f.writersOf = map[int32][]int32{}
	}
	f.writersOf[x] = append(f.writersOf[x], int32(len(f.writers)))
	f.writers = append(f.writers, lockDep{ev: i, g: g, mutex: x, held: slices.Clone(e.held[g]), wvc: e.snapshot(&e.wvc[g])})
}

// waitsForRW reports whether a's request can wait for b's held lock: in a conflicting
// mode, or both reads of an RWMutex someone write-locks (the pending writer between them
// is checked for the whole cycle by cycleWriters).
func (r *Result) waitsForRW(a, b *lockDep) bool {
	held, read := heldMode(b, a.mutex)
	if !held {
		return false
	}
	return !(read && a.read) || len(r.facts.writersOf[a.mutex]) > 0
}

// cycleWriters finds, for each read-read edge of cycle cyc (cyc[k]'s RLock waits for
// cyc[k+1], which read-holds the mutex), a writer that can be pending between them; it
// returns them by requesting dependency, and false when an edge has none.
func (r *Result) cycleWriters(cyc []*lockDep, checks *int) (map[*lockDep]int32, bool) {
	var out map[*lockDep]int32
	var chosen []*lockDep
	for k, a := range cyc {
		b := cyc[(k+1)%len(cyc)]
		if held, read := heldMode(b, a.mutex); !held || !read || !a.read {
			continue
		}
		var w *lockDep
		for _, c := range chosen { // one pending writer serves every edge of its mutex
			if c.mutex == a.mutex {
				w = c
			}
		}
		if w == nil {
			w = r.pendingWriter(a.mutex, cyc, chosen, checks)
		}
		if w == nil {
			return nil, false
		}
		if out == nil {
			out = map[*lockDep]int32{}
		}
		out[a] = w.ev
		if !slices.Contains(chosen, w) {
			chosen = append(chosen, w)
		}
	}
	return out, true
}

// pendingWriter returns a write request on mutex m that can be pending while the cycle's
// goroutines wait, beside the writers already chosen for other mutexes (nil: none, or the
// trace's checks are used up).
func (r *Result) pendingWriter(m int32, cyc, chosen []*lockDep, checks *int) *lockDep {
	fits := func(w, d *lockDep) bool {
		return w.g != d.g && !guarded(w, d) && !weakHB(r, w, d) && !weakHB(r, d, w)
	}
	for _, k := range r.facts.writersOf[m] {
		if *checks++; *checks > maxWriterChecks {
			return nil
		}
		w := &r.facts.writers[k]
		if held, _ := heldMode(w, m); held {
			continue // it waits for itself, not for the readers
		}
		ok := true
		for _, d := range cyc {
			ok = ok && fits(w, d)
		}
		for _, c := range chosen {
			ok = ok && fits(w, c)
		}
		if ok {
			return w
		}
	}
	return nil
}

// distinct returns the writers of a cycle once each (one may serve two edges of its mutex).
func distinct(writers map[*lockDep]int32) []int32 {
	var out []int32
	for _, w := range writers {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// lockWaitees returns what blocked Lock or RLock i waits for, as operations whose
// goroutines must move first: the acquisition write-holding its mutex; else, for a Lock,
// every read acquisition still held (a writer waits for all readers); for an RLock, the
// other goroutines blocked in Lock of it (a pending writer blocks new readers, and every
// blocked writer waits, directly or behind the pending one, for the same readers).
func (r *Result) lockWaitees(i int32) []int32 {
	ev := &r.Trace.Events[i]
	if ev.Kind != trace.KindLock && ev.Kind != trace.KindRLock {
		return nil
	}
	if h, ok := r.facts.holders[ev.Obj]; ok && isWriteAcq(r.Trace.Events[h].Kind) {
		return []int32{h}
	}
	if ev.Kind == trace.KindLock {
		return r.facts.readHolders[ev.Obj]
	}
	var out []int32
	for _, j := range r.facts.blocked {
		if w := &r.Trace.Events[j]; w.Kind == trace.KindLock && w.Obj == ev.Obj && r.gOf[j] != r.gOf[i] {
			out = append(out, j)
		}
	}
	return out
}

// heldAcqs returns the acquisitions of mutex obj still held at the end: its write holder,
// or its readers.
func (r *Result) heldAcqs(obj uint64) []int32 {
	if rs := r.facts.readHolders[obj]; len(rs) > 0 {
		return rs
	}
	if h, ok := r.facts.holders[obj]; ok {
		return []int32{h}
	}
	return nil
}
