package analysis

import (
	"slices"

	"github.com/goweave/goweave/analysis/trace"
)

// Per-event walks over a mutex's history, kept linear: the read locks held (an RWMutex
// with many readers at once) and the latest acquisition per goroutine (scanned at each
// Lock for flow pairs: with many goroutines taking one mutex one after another, ordered
// by other means, every scan found nothing and cost their number).

// readerSet is the read locks held on an RWMutex, in acquisition order. Past a few, the
// entries are indexed by goroutine and released ones are left as holes (g -1) until they
// are many, so that finding and releasing one does not cost the whole list.
type readerSet struct {
	list []heldRead
	live int
	byG  map[int32][]int32 // per goroutine: indices in list of its read locks, oldest first (indexed mode)
}

// readerScan is the number of read locks held at once up to which they are scanned.
const readerScan = 8

func (s *readerSet) len() int { return s.live }

// last returns the newest read lock held (s.len() > 0).
func (s *readerSet) last() heldRead { return s.list[len(s.list)-1] }

func (s *readerSet) add(g, ev int32) {
	s.list = append(s.list, heldRead{g, ev})
	s.live++
	switch {
	case s.byG != nil:
		s.byG[g] = append(s.byG[g], int32(len(s.list)-1))
	case len(s.list) > readerScan:
		s.reindex()
	}
}

// firstOf returns the oldest read lock g holds (-1: none).
func (s *readerSet) firstOf(g int32) int32 {
	if s.byG != nil {
		if ks := s.byG[g]; len(ks) > 0 {
			return s.list[ks[0]].ev
		}
		return -1
	}
	for _, r := range s.list {
		if r.g == g {
			return r.ev
		}
	}
	return -1
}

// newestOf returns the index of the newest read lock g holds, -1 if none.
func (s *readerSet) newestOf(g int32) int {
	if s.byG != nil {
		if ks := s.byG[g]; len(ks) > 0 {
			return int(ks[len(ks)-1])
		}
		return -1
	}
	for j := len(s.list) - 1; j >= 0; j-- {
		if s.list[j].g == g {
			return j
		}
	}
	return -1
}

// removeAt removes and returns the read lock at index k (a live entry).
func (s *readerSet) removeAt(k int) heldRead {
	r := s.list[k]
	if s.byG == nil {
		s.list = slices.Delete(s.list, k, k+1)
		s.live--
		return r
	}
	ks := slices.DeleteFunc(s.byG[r.g], func(j int32) bool { return int(j) == k })
	if len(ks) == 0 {
		delete(s.byG, r.g)
	} else {
		s.byG[r.g] = ks
	}
	s.list[k].g = -1
	s.live--
	for len(s.list) > 0 && s.list[len(s.list)-1].g < 0 {
		s.list = s.list[:len(s.list)-1]
	}
	if holes := len(s.list) - s.live; holes > s.live+readerScan {
		s.list = slices.DeleteFunc(s.list, func(r heldRead) bool { return r.g < 0 })
		s.reindex()
	}
	return r
}

// reindex builds the index of the (hole-free) list.
func (s *readerSet) reindex() {
	s.byG = make(map[int32][]int32, len(s.list))
	for k, r := range s.list {
		s.byG[r.g] = append(s.byG[r.g], int32(k))
	}
}

// acqFrontier: every latest acquisition in a mutex's lastAcq happens before, by the weak
// clock, the lock request of goroutine g with epoch ep, except those of the goroutines in
// dirty (acquired since). Set by a write request's scan that found none.
type acqFrontier struct {
	g, ep int32
	valid bool
	dirty []int32
}

// acquiredBy notes that g's latest acquisition of m changed.
func (m *mutexState) acquiredBy(g int32) {
	if fr := m.front; fr != nil && fr.valid {
		if len(fr.dirty) >= len(m.lastAcq.gs)/2+8 {
			fr.valid, fr.dirty = false, nil // most changed: a plain scan is as cheap
			return
		}
		fr.dirty = append(fr.dirty, g)
	}
}

// frontierCovers reports whether m's frontier happens before the current point of g (weak
// clock): then only the goroutines in its dirty list need a look.
func (e *engine) frontierCovers(m *mutexState, g int32) bool {
	fr := m.front
	if fr == nil || !fr.valid || !(fr.g == g || uint32(fr.ep) <= e.wvc[g].get(fr.g)) {
		return false
	}
	if len(fr.dirty) > 1 {
		slices.Sort(fr.dirty) // the goroutine order of a full scan
		fr.dirty = slices.Compact(fr.dirty)
	}
	return true
}

// setFrontier makes request i of g (its weak clock before it acquires) m's frontier.
func (e *engine) setFrontier(m *mutexState, g, i int32) {
	if len(m.lastAcq.gs) < frontierMin {
		return
	}
	if m.front == nil {
		m.front = new(acqFrontier)
		e.extra += 48
	}
	m.front.g, m.front.ep, m.front.valid = g, int32(e.r.epoch[i]), true
	m.front.dirty = m.front.dirty[:0]
}

// isWriteAcq reports whether an acquisition of kind holds the mutex for writing.
func isWriteAcq(k trace.Kind) bool { return k == trace.KindLock || k == trace.KindTryLock }
