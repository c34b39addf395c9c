package analysis

import (
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// rwStore is a store with a connection lock, an index RWMutex and a cache RWMutex: flush
// holds the connection and read-locks the index; apply read-holds the index and
// write-locks the cache; refresh holds the cache and locks the connection. The cycle's
// flush -> apply edge is read-read: it waits only while a writer's Lock of the index is
// pending between them (prune's, when prune is set).
type rwStore struct {
	b                   *tracetest.Builder
	m                   *tracetest.G
	conn, index, cache  tracetest.Mutex
	flush, apply, fresh *tracetest.G
}

func newRWStore() *rwStore {
	b := tracetest.New()
	s := &rwStore{b: b, m: b.Main(), conn: b.Mutex(), index: b.RWMutex(), cache: b.RWMutex()}
	s.flush, s.apply, s.fresh = s.m.Go("s.go:50"), s.m.Go("s.go:51"), s.m.Go("s.go:52")
	return s
}

func (s *rwStore) run() {
	s.flush.Lock(s.conn, "s.go:10")
	s.flush.RLock(s.index, "s.go:11")
	s.flush.RUnlock(s.index, "s.go:12")
	s.flush.Unlock(s.conn, "s.go:13")

	s.apply.RLock(s.index, "s.go:20")
	s.apply.Lock(s.cache, "s.go:21")
	s.apply.Unlock(s.cache, "s.go:22")
	s.apply.RUnlock(s.index, "s.go:23")

	s.fresh.Lock(s.cache, "s.go:30")
	s.fresh.Lock(s.conn, "s.go:31")
	s.fresh.Unlock(s.conn, "s.go:32")
	s.fresh.Unlock(s.cache, "s.go:33")
}

// prune write-locks the index in a goroutine of its own.
func (s *rwStore) prune(g *tracetest.G) {
	g.Lock(s.index, "s.go:40")
	g.Unlock(s.index, "s.go:41")
}

// A three-goroutine cycle whose flush -> apply edge is two readers of the index: with
// prune's Lock of the index unordered with the cycle, flush's RLock queues behind it while
// it waits for apply's read lock. One predicted cycle, prune's Lock related.
func TestCyclicDeadlockThroughPendingWriter(t *testing.T) {
	s := newRWStore()
	s.run()
	s.prune(s.m.Go("s.go:53"))
	r := analyze(t, s.b)
	f := want(t, r, "cyclic-deadlock", Predicted, "s.go:31", "writer lock=s.go:40", "lock=s.go:11", "lock=s.go:21",
		"held lock=s.go:10", "held lock=s.go:20", "held lock=s.go:30")
	if !strings.Contains(f.Message, "between 3 goroutines and a pending writer") || !strings.Contains(f.Message, "pending writer blocks new readers") || !strings.Contains(f.Message, "s.go:40") {
		t.Errorf("message does not name the pending writer: %s", f.Message)
	}
	if len(f.Goroutines) != 4 {
		t.Errorf("goroutines %+v, want the cycle's 3 and the writer", f.Goroutines)
	}
	if len(r.Findings) != 1 {
		t.Errorf("findings %v", summaries(r))
	}
}

// The same cycle is no deadlock when no writer can be pending between the two readers.
func TestCyclicDeadlockReadersWithoutPendingWriter(t *testing.T) {
	t.Run("no writer", func(t *testing.T) {
		s := newRWStore()
		s.run()
		wantNo(t, analyze(t, s.b), "cyclic-deadlock")
	})
	t.Run("writer before", func(t *testing.T) {
		// prune ran before the store's goroutines were started
		b := tracetest.New()
		s := &rwStore{b: b, m: b.Main(), conn: b.Mutex(), index: b.RWMutex(), cache: b.RWMutex()}
		s.prune(s.m)
		s.flush, s.apply, s.fresh = s.m.Go("s.go:50"), s.m.Go("s.go:51"), s.m.Go("s.go:52")
		s.run()
		wantNo(t, analyze(t, s.b), "cyclic-deadlock")
	})
	t.Run("writer after", func(t *testing.T) {
		// prune waits until flush and apply are done
		s := newRWStore()
		s.run()
		done := s.m.MakeChan(0, "s.go:60")
		p := s.m.Go("s.go:53")
		s.flush.Close(done, "s.go:14")
		s.apply.RecvBare(done, "s.go:24")
		s.apply.Close(s.m.MakeChan(0, "s.go:61"), "s.go:25")
		p.RecvBare(done, "s.go:42")
		wait := s.m.MakeChan(0, "s.go:62")
		s.apply.Close(wait, "s.go:26")
		p.RecvBare(wait, "s.go:43")
		s.prune(p)
		wantNo(t, analyze(t, s.b), "cyclic-deadlock")
	})
	t.Run("writer in the cycle", func(t *testing.T) {
		// apply itself write-locks the index later: it cannot be pending while apply waits
		s := newRWStore()
		s.run()
		s.prune(s.apply)
		wantNo(t, analyze(t, s.b), "cyclic-deadlock")
	})
	t.Run("writer guarded", func(t *testing.T) {
		// apply and prune both hold a guard mutex: prune cannot be pending while apply
		// read-holds the index
		s := newRWStore()
		guard := s.b.Mutex()
		s.apply.Lock(guard, "s.go:19")
		s.run()
		s.apply.Unlock(guard, "s.go:24")
		p := s.m.Go("s.go:53")
		p.Lock(guard, "s.go:39")
		s.prune(p)
		p.Unlock(guard, "s.go:44")
		wantNo(t, analyze(t, s.b), "cyclic-deadlock")
	})
}

// Two readers each holding one RWMutex and read-locking the other: both edges are
// read-read, so the cycle needs a pending writer on each mutex, in two goroutines.
func TestCyclicDeadlockTwoReadEdges(t *testing.T) {
	for _, writers := range []int{1, 2} {
		b := tracetest.New()
		m := b.Main()
		a, c := b.RWMutex(), b.RWMutex()
		g1, g2 := m.Go("u.go:31"), m.Go("u.go:32")
		g1.RLock(a, "u.go:19")
		g1.RLock(c, "u.go:21")
		g1.RUnlock(c, "u.go:25")
		g1.RUnlock(a, "u.go:25")
		g2.RLock(c, "u.go:19")
		g2.RLock(a, "u.go:21")
		g2.RUnlock(a, "u.go:25")
		g2.RUnlock(c, "u.go:25")
		w := m.Go("u.go:33")
		w.Lock(a, "u.go:40")
		w.Unlock(a, "u.go:41")
		if writers == 2 {
			w2 := m.Go("u.go:34")
			w2.Lock(c, "u.go:42")
			w2.Unlock(c, "u.go:43")
		} else {
			// the same goroutine cannot be pending on both
			w.Lock(c, "u.go:42")
			w.Unlock(c, "u.go:43")
		}
		r := analyze(t, b)
		if writers == 1 {
			wantNo(t, r, "cyclic-deadlock")
			continue
		}
		want(t, r, "cyclic-deadlock", Predicted, "u.go:21", "writer lock=u.go:40", "writer lock=u.go:42")
	}
}

// The cycle happened: flush, apply and refresh blocked in their second lock, prune in its
// Lock of the index behind apply's read lock.
func TestCyclicDeadlockThroughPendingWriterActual(t *testing.T) {
	b := tracetest.New().Meta("exit", "signal").Meta("signal", "3")
	m := b.Main()
	conn, index, cache := b.Mutex(), b.RWMutex(), b.RWMutex()
	flush, apply, fresh, prune := m.Go("s.go:50"), m.Go("s.go:51"), m.Go("s.go:52"), m.Go("s.go:53")
	flush.Lock(conn, "s.go:10")
	apply.RLock(index, "s.go:20")
	fresh.Lock(cache, "s.go:30")
	prune.Pending().Lock(index, "s.go:40")
	flush.Pending().RLock(index, "s.go:11")
	apply.Pending().Lock(cache, "s.go:21")
	fresh.Pending().Lock(conn, "s.go:31")
	r := analyze(t, b)
	want(t, r, "cyclic-deadlock", Actual, "s.go:31", "writer lock=s.go:40")
}

// The same cycle in a run stopped at its time limit while a sleeper was still busy (a mock
// server's goroutines, say): the trace alone proves the four goroutines could never move
// (flush waits for prune, prune for apply's read lock, apply for refresh, refresh for
// flush), so it is one deadlock finding at the cycle, not a slow run; the same run
// without the pending writer stays unreported.
func TestTimeLimitLockCycleThroughPendingWriter(t *testing.T) {
	for _, writer := range []bool{true, false} {
		b, m := timeLimitRun(false)
		conn, index, cache := b.Mutex(), b.RWMutex(), b.RWMutex()
		flush, apply, fresh := m.Go("s.go:50"), m.Go("s.go:51"), m.Go("s.go:52")
		flush.Lock(conn, "s.go:10")
		apply.RLock(index, "s.go:20")
		fresh.Lock(cache, "s.go:30")
		if writer {
			m.Go("s.go:53").State(4, "sync.RWMutex.Lock").Pending().Lock(index, "s.go:40")
			flush.State(4, "sync.RWMutex.RLock").Pending().RLock(index, "s.go:11")
		} else {
			flush.State(4, "sleep")
		}
		apply.State(4, "sync.RWMutex.Lock").Pending().Lock(cache, "s.go:21")
		fresh.State(4, "sync.Mutex.Lock").Pending().Lock(conn, "s.go:31")
		m.State(4, "sleep")
		r := analyze(t, b)
		if !writer {
			wantNo(t, r, "deadlock")
			continue
		}
		f := want(t, r, "deadlock", Actual, "s.go:31", "cycle=s.go:11", "cycle=s.go:21", "cycle=s.go:40")
		if !strings.Contains(f.Message, "time limit") || !strings.Contains(f.Message, "lock cycle of 4") {
			t.Errorf("message: %s", f.Message)
		}
		n := 0
		for _, f := range r.Findings {
			if f.Kind == "deadlock" {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d deadlock findings, want the stuck state as one: %v", n, summaries(r))
		}
	}
}
