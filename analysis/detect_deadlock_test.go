package analysis

import (
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// transfer locks from then to; a payment and a refund lock in opposite orders.
func transfer(g *tracetest.G, from, to tracetest.Mutex) {
	g.Lock(from, "t.go:19")
	g.Lock(to, "t.go:21")
	g.Unlock(to, "t.go:25")
	g.Unlock(from, "t.go:25")
}

// cyclic_deadlock_abba: the refund runs 10ms after the payment; nothing orders them.
func TestCyclicDeadlockPredicted(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	a, bb := b.Mutex(), b.Mutex()
	paid := m.MakeChan(0, "t.go:30")
	pay := m.Go("t.go:31")
	transfer(pay, a, bb)
	pay.Close(paid, "t.go:33")
	pay.End()
	transfer(m, bb, a)
	m.RecvBare(paid, "t.go:37")
	r := analyze(t, b)
	f := want(t, r, "cyclic-deadlock", Predicted, "t.go:21", "held lock=t.go:19", "lock=t.go:21")
	if f.Severity != SeverityWarning {
		t.Errorf("severity %s", f.Severity)
	}
	if len(r.Findings) != 1 {
		t.Errorf("findings %v", summaries(r))
	}
}

// The refund waits for the payment to finish (channel), or both take a guard lock first:
// no cycle.
func TestCyclicDeadlockExcluded(t *testing.T) {
	t.Run("ordered", func(t *testing.T) {
		b := tracetest.New()
		m := b.Main()
		a, bb := b.Mutex(), b.Mutex()
		paid := m.MakeChan(0, "t.go:30")
		pay := m.Go("t.go:31")
		transfer(pay, a, bb)
		pay.Close(paid, "t.go:33")
		m.RecvBare(paid, "t.go:35")
		transfer(m, bb, a)
		wantNo(t, analyze(t, b))
	})
	t.Run("guard lock", func(t *testing.T) {
		b := tracetest.New()
		m := b.Main()
		guard, a, bb := b.Mutex(), b.Mutex(), b.Mutex()
		pay := m.Go("t.go:31")
		pay.Lock(guard, "t.go:17")
		transfer(pay, a, bb)
		pay.Unlock(guard, "t.go:26")
		m.Lock(guard, "t.go:17")
		transfer(m, bb, a)
		m.Unlock(guard, "t.go:26")
		wantNo(t, analyze(t, b))
	})
	t.Run("same order", func(t *testing.T) {
		b := tracetest.New()
		m := b.Main()
		a, bb := b.Mutex(), b.Mutex()
		pay := m.Go("t.go:31")
		transfer(pay, a, bb)
		transfer(m, a, bb)
		wantNo(t, analyze(t, b))
	})
	t.Run("two readers", func(t *testing.T) {
		b := tracetest.New()
		m := b.Main()
		a, bb := b.RWMutex(), b.RWMutex()
		pay := m.Go("t.go:31")
		pay.RLock(a, "t.go:19")
		pay.RLock(bb, "t.go:21")
		pay.RUnlock(bb, "t.go:25")
		pay.RUnlock(a, "t.go:25")
		m.RLock(bb, "t.go:19")
		m.RLock(a, "t.go:21")
		m.RUnlock(a, "t.go:25")
		m.RUnlock(bb, "t.go:25")
		wantNo(t, analyze(t, b))
	})
}

// Three goroutines in a cycle A->B, B->C, C->A.
func TestCyclicDeadlockThree(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	mu := []tracetest.Mutex{b.Mutex(), b.Mutex(), b.Mutex()}
	for k := 0; k < 3; k++ {
		g := m.Go("t.go:40")
		g.Lock(mu[k], "t.go:41")
		g.Lock(mu[(k+1)%3], "t.go:42")
		g.Unlock(mu[(k+1)%3], "t.go:43")
		g.Unlock(mu[k], "t.go:44")
	}
	r := analyze(t, b)
	f := want(t, r, "cyclic-deadlock", Predicted, "t.go:42")
	if len(f.Goroutines) != 3 {
		t.Errorf("goroutines %+v", f.Goroutines)
	}
}

// The cycle happened: both transfers are blocked in their second Lock.
func TestCyclicDeadlockActual(t *testing.T) {
	b := tracetest.New().Meta("exit", "signal").Meta("signal", "3")
	m := b.Main()
	a, bb := b.Mutex(), b.Mutex()
	pay := m.Go("t.go:31")
	pay.Lock(a, "t.go:19")
	m.Lock(bb, "t.go:19")
	pay.Pending().Lock(bb, "t.go:21")
	m.Pending().Lock(a, "t.go:21")
	r := analyze(t, b)
	want(t, r, "cyclic-deadlock", Actual, "t.go:21", "held lock=t.go:19")
	want(t, r, "deadlock", Actual, "t.go:21")
}

// rwmutex_recursive_rlock: Get read-locks, then lookup read-locks again; the refresher's
// Lock is not ordered with them.
func TestRecursiveRLock(t *testing.T) {
	for _, writerFirst := range []bool{false, true} {
		b := tracetest.New()
		m := b.Main()
		mu := b.RWMutex()
		ref := m.Go("r.go:42")
		if writerFirst {
			ref.Lock(mu, "r.go:34")
			ref.Unlock(mu, "r.go:36")
		}
		m.RLock(mu, "r.go:25")
		m.RLock(mu, "r.go:19")
		m.RUnlock(mu, "r.go:22")
		m.RUnlock(mu, "r.go:31")
		if !writerFirst {
			ref.Lock(mu, "r.go:34")
			ref.Unlock(mu, "r.go:36")
		}
		r := analyze(t, b)
		want(t, r, "cyclic-deadlock", Predicted, "r.go:19", "writer lock=r.go:34", "held lock=r.go:25")
		if len(r.Findings) != 1 {
			t.Errorf("findings %v", summaries(r))
		}
	}
	// ordered: the writer runs only after Get finished
	b := tracetest.New()
	m := b.Main()
	mu := b.RWMutex()
	done := m.MakeChan(0, "r.go:40")
	ref := m.Go("r.go:42")
	m.RLock(mu, "r.go:25")
	m.RLock(mu, "r.go:19")
	m.RUnlock(mu, "r.go:22")
	m.RUnlock(mu, "r.go:31")
	m.Close(done, "r.go:48")
	ref.RecvBare(done, "r.go:43")
	ref.Lock(mu, "r.go:34")
	ref.Unlock(mu, "r.go:36")
	wantNo(t, analyze(t, b))
}

// mixed_deadlock_lock_chan: publish sends under the bus lock; the subscriber takes that lock
// before receiving.
func TestMixedDeadlockPredicted(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	mu := b.Mutex()
	events := m.MakeChan(0, "b.go:34")
	sub := m.Go("b.go:36")
	sub.Lock(mu, "b.go:28")
	sub.Unlock(mu, "b.go:31")
	recv := sub.Pending().Recv(events, "b.go:38")
	m.Lock(mu, "b.go:21")
	m.Send(events, "b.go:23")
	recv.Complete()
	m.Unlock(mu, "b.go:25")
	r := analyze(t, b)
	want(t, r, "mixed-deadlock", Predicted, "b.go:23", "partner's lock=b.go:28", "held lock=b.go:21")
	if len(r.Findings) != 1 {
		t.Errorf("findings %v", summaries(r))
	}
}

// The partner does not take the lock, or takes it only after the receive: no cycle.
func TestMixedDeadlockExcluded(t *testing.T) {
	for _, lockAfter := range []bool{false, true} {
		b := tracetest.New()
		m := b.Main()
		mu := b.Mutex()
		events := m.MakeChan(0, "b.go:34")
		sub := m.Go("b.go:36")
		recv := sub.Pending().Recv(events, "b.go:38")
		m.Lock(mu, "b.go:21")
		m.Send(events, "b.go:23")
		recv.Complete()
		m.Unlock(mu, "b.go:25")
		if lockAfter {
			sub.Lock(mu, "b.go:28")
			sub.Unlock(mu, "b.go:31")
		}
		wantNo(t, analyze(t, b))
	}
}

// Whichever goroutine's critical sections ran first, the cycle is reported at the request
// of the goroutine started last, with one fingerprint: a finding must not move between
// runs that only interleave differently.
func TestCyclicDeadlockPrimaryIsScheduleIndependent(t *testing.T) {
	run := func(firstFirst bool) Finding {
		b := tracetest.New()
		m := b.Main()
		catalog, warehouse := b.Mutex(), b.Mutex()
		add := m.Go("s.go:10")     // started first: catalog, then warehouse
		restock := m.Go("s.go:14") // started second: warehouse, then catalog
		addSection := func() {
			add.Lock(catalog, "i.go:31")
			add.Lock(warehouse, "i.go:34")
			add.Unlock(warehouse, "i.go:36")
			add.Unlock(catalog, "i.go:37")
		}
		restockSection := func() {
			restock.Lock(warehouse, "i.go:44")
			restock.Lock(catalog, "i.go:47")
			restock.Unlock(catalog, "i.go:51")
			restock.Unlock(warehouse, "i.go:52")
		}
		if firstFirst {
			addSection()
			restockSection()
		} else {
			restockSection()
			addSection()
		}
		add.End()
		restock.End()
		r := analyze(t, b)
		return want(t, r, "cyclic-deadlock", Predicted, "i.go:47", "held lock=i.go:44", "lock=i.go:34")
	}
	a, b := run(true), run(false)
	if a.Fingerprint != b.Fingerprint {
		t.Errorf("fingerprints differ between the two interleavings: %s vs %s", a.Fingerprint, b.Fingerprint)
	}
}

// prometheus/client_golang's summary (cmd/goweave/testdata/handofflock): Observe holds
// buf and, when the buffer is full, locks mtx and hands it to a flusher it starts, which
// unlocks it. The observer's next Lock of buf is not made while it holds mtx (the flusher
// does, and it takes no lock), so the other observer's buf -> mtx closes no cycle.
func TestCyclicDeadlockHandedOffLock(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	buf, mtx := b.Mutex(), b.Mutex()
	observe := func(g *tracetest.G) {
		g.Lock(buf, "s.go:27")
		g.Lock(mtx, "s.go:37")
		fl := g.Go("s.go:40")
		g.Unlock(buf, "s.go:28")
		g.Lock(buf, "s.go:27")
		g.Unlock(buf, "s.go:28")
		fl.Unlock(mtx, "s.go:46")
		fl.End()
	}
	g1, g2 := m.Go("t.go:10"), m.Go("t.go:10")
	observe(g1)
	observe(g2)
	g1.End()
	g2.End()
	r := analyze(t, b)
	for _, f := range r.Findings {
		if f.Kind == "cyclic-deadlock" {
			t.Errorf("unexpected %v", summaries(r))
		}
	}
}
