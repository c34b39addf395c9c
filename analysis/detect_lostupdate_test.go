package analysis

import (
	"testing"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// word sets the recorded word of an atomic operation.
func word(o *tracetest.Op, v uint64) {
	e := o.Event()
	e.B = v
	e.Flags |= trace.FlagValueUsed
}

func lostUpdatesOf(t *testing.T, build func(b *tracetest.Builder, m *tracetest.G)) []Finding {
	t.Helper()
	b := tracetest.New()
	m := b.Main()
	build(b, m)
	return Analyze(b.Trace()).lostUpdates()
}

func TestLostUpdate(t *testing.T) {
	const x = 0x1000
	// A rollback: a CompareAndSwap replaces 1 by 2, another goroutine stores 3, the Store
	// puts 1 back (what the next Load finds).
	got := lostUpdatesOf(t, func(b *tracetest.Builder, m *tracetest.G) {
		w := m.Go("conn_test.go:5")
		word(m.AtomicRMW(x, "conn.go:10"), 1)
		word(w.AtomicStore(x, "conn.go:30"), 2)
		word(m.AtomicStore(x, "conn.go:12"), 3)
		word(w.AtomicLoad(x, "conn.go:31"), 1)
	})
	if len(got) != 1 || got[0].Positions[0].Line != 12 || got[0].Positions[1].Line != 10 || got[0].Positions[2].Line != 30 {
		t.Errorf("rollback: %+v, want the Store at conn.go:12, the CompareAndSwap at :10, the other Store at :30", got)
	}
	// A spin lock: the other goroutine's CompareAndSwap fails (the word stays 1), the Unlock
	// stores the 0 the Lock saw: nothing was lost.
	got = lostUpdatesOf(t, func(b *tracetest.Builder, m *tracetest.G) {
		w := m.Go("lock_test.go:5")
		word(m.AtomicRMW(x, "lock.go:19"), 0)
		word(w.AtomicRMW(x, "lock.go:19"), 1)
		word(m.AtomicStore(x, "lock.go:31"), 1)
		word(w.AtomicRMW(x, "lock.go:19"), 0)
	})
	if len(got) != 0 {
		t.Errorf("spin lock: %+v, want none", got)
	}
	// Two CompareAndSwaps under contention both record the old word (the hook reads it
	// before the operation): the one that failed must not look like the lost write.
	got = lostUpdatesOf(t, func(b *tracetest.Builder, m *tracetest.G) {
		w := m.Go("pool_test.go:5")
		word(m.AtomicRMW(x, "pool.go:524"), 0)
		word(w.AtomicRMW(x, "pool.go:524"), 0)
		word(m.AtomicStore(x, "pool.go:530"), 1)
		word(w.AtomicLoad(x, "pool.go:600"), 0)
	})
	if len(got) != 0 {
		t.Errorf("contended CompareAndSwap: %+v, want none", got)
	}
	// A flag two goroutines set after each read it unset: the Store writes what the other
	// wrote, not what its goroutine saw.
	got = lostUpdatesOf(t, func(b *tracetest.Builder, m *tracetest.G) {
		w := m.Go("flag_test.go:5")
		word(m.AtomicLoad(x, "flag.go:3"), 0)
		word(w.AtomicLoad(x, "flag.go:3"), 0)
		word(w.AtomicStore(x, "flag.go:4"), 0)
		word(m.AtomicStore(x, "flag.go:4"), 1)
		word(w.AtomicLoad(x, "flag.go:9"), 1)
	})
	if len(got) != 0 {
		t.Errorf("flag: %+v, want none", got)
	}
	// Zero written back: a goroutine read a nil next pointer where, after a GC, another
	// goroutine's new bucket was allocated; its Store of nil into a slot of that bucket
	// looks like a rollback to what it read (xsync at its fix, recorded whole), but a zero
	// word is what every new allocation holds, so it is no evidence of a value restored.
	got = lostUpdatesOf(t, func(b *tracetest.Builder, m *tracetest.G) {
		w := m.Go("map_test.go:5")
		word(m.AtomicLoad(x, "map.go:189"), 0)
		word(w.AtomicStore(x, "map.go:366"), 0)
		word(w.AtomicStore(x, "map.go:400"), 7)
		word(m.AtomicStore(x, "map.go:366"), 7)
		word(w.AtomicLoad(x, "map.go:176"), 0)
	})
	if len(got) != 0 {
		t.Errorf("zero written back: %+v, want none", got)
	}
	// Without recorded words (an older recorder) nothing is judged.
	b := tracetest.New()
	m := b.Main()
	w := m.Go("conn_test.go:5")
	m.AtomicRMW(x, "conn.go:10")
	w.AtomicStore(x, "conn.go:30")
	m.AtomicStore(x, "conn.go:12")
	w.AtomicLoad(x, "conn.go:31")
	if got := Analyze(b.Trace()).lostUpdates(); len(got) != 0 {
		t.Errorf("no words: %+v, want none", got)
	}
}
