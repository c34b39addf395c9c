package analysis

import (
	"testing"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// One object used by n goroutines, per kind: the shapes where a rule that walks an
// object's history at each event is quadratic in n (BENCHMARKS.md, "One object, many
// goroutines"). Each benchmark reports events per CPU-second: flat as n grows x10 means
// linear.

// wgFanout: main does wg.Add(1) and go before each of n workers; the workers wait for a
// start signal (main closes a channel once all are started), call Done and end; main
// waits; then one goroutine leaks on an unbuffered send (the fan-out test of issue 20:
// every Done happens after every Add).
func wgFanout(n int) *trace.Trace {
	b := tracetest.New()
	m := b.Main()
	wg := b.WaitGroup()
	start := m.MakeChan(0, "main.go:8")
	ws := make([]*tracetest.G, n)
	for k := range ws {
		m.Add(wg, 1, "main.go:10")
		ws[k] = m.Go("main.go:11")
	}
	m.Close(start, "main.go:14")
	for _, w := range ws {
		w.RecvBare(start, "main.go:12")
		w.Done(wg, "main.go:13")
		w.End()
	}
	m.Wait(wg, "main.go:16")
	c := m.MakeChan(0, "main.go:17")
	m.Go("main.go:18").Pending().Send(c, "main.go:18")
	m.End()
	return b.Trace()
}

// wgSelfAdd: each worker calls Add(1) itself then Done (the misuse negative-waitgroup
// predicts; n goroutines that Add).
func wgSelfAdd(n int) *trace.Trace {
	b := tracetest.New()
	m := b.Main()
	wg := b.WaitGroup()
	for range n {
		w := m.Go("main.go:11")
		w.Add(wg, 1, "main.go:12")
		w.Done(wg, "main.go:13")
		w.End()
	}
	m.Wait(wg, "main.go:16")
	m.End()
	return b.Trace()
}

// chanSenders: n goroutines send once on one buffered channel; main receives n.
func chanSenders(n int) *trace.Trace {
	b := tracetest.New()
	m := b.Main()
	c := m.MakeChan(16, "main.go:5")
	for k := range n {
		m.Go("main.go:6").Send(c, "main.go:7")
		if k%16 == 15 {
			for range 16 {
				m.Recv(c, "main.go:9")
			}
		}
	}
	m.End()
	return b.Trace()
}

// chanUnbuffered: n goroutines hand a value each to main on one unbuffered channel.
func chanUnbuffered(n int) *trace.Trace {
	b := tracetest.New()
	m := b.Main()
	c := m.MakeChan(0, "main.go:5")
	for range n {
		w := m.Go("main.go:6")
		w.Send(c, "main.go:7")
		m.Recv(c, "main.go:9")
		w.End()
	}
	m.End()
	return b.Trace()
}

// mutexWaiters: n goroutines each lock and unlock one shared mutex (and an RWMutex as
// readers).
func mutexWaiters(n int) *trace.Trace {
	b := tracetest.New()
	m := b.Main()
	mu, rw := b.Mutex(), b.RWMutex()
	ws := make([]*tracetest.G, n)
	for k := range ws {
		ws[k] = m.Go("main.go:6")
	}
	for _, w := range ws {
		w.RLock(rw, "r.go:10")
	}
	for _, w := range ws {
		w.Lock(mu, "m.go:10")
		w.Unlock(mu, "m.go:11")
	}
	for _, w := range ws {
		w.RUnlock(rw, "r.go:11")
		w.End()
	}
	m.End()
	return b.Trace()
}

// onceCallers: n goroutines call Do on one Once.
func onceCallers(n int) *trace.Trace {
	b := tracetest.New()
	m := b.Main()
	o := b.Once()
	for range n {
		w := m.Go("main.go:6")
		w.OnceDo(o, "main.go:7")
		w.End()
	}
	m.End()
	return b.Trace()
}

// condWaiters: n goroutines wait on one Cond; main broadcasts once.
func condWaiters(n int) *trace.Trace {
	b := tracetest.New()
	m := b.Main()
	mu := b.Mutex()
	c := b.Cond(mu)
	ops := make([]*tracetest.Op, n)
	for k := range ops {
		w := m.Go("main.go:6")
		w.Lock(mu, "main.go:7")
		ops[k] = w.CondWait(c, "main.go:8")
	}
	m.Lock(mu, "main.go:10")
	m.Broadcast(c, "main.go:11")
	m.Unlock(mu, "main.go:12")
	for _, o := range ops {
		o.Complete()
	}
	m.End()
	return b.Trace()
}

// selectors: n goroutines each select over one shared channel and a channel of their own;
// main serves each through the shared one.
func selectors(n int) *trace.Trace {
	b := tracetest.New()
	m := b.Main()
	shared := m.MakeChan(0, "main.go:5")
	for range n {
		own := m.MakeChan(0, "main.go:6")
		w := m.Go("main.go:7")
		m.Send(shared, "main.go:8")
		w.Select("w.go:10", 0, tracetest.RecvValueCase(shared), tracetest.RecvCase(own))
		w.End()
	}
	m.End()
	return b.Trace()
}

func BenchmarkObjectWgFanout10K(b *testing.B)  { benchScale(b, "wgFanout", wgFanout, 10_000) }
func BenchmarkObjectWgFanout100K(b *testing.B) { benchScale(b, "wgFanout", wgFanout, 100_000) }
func BenchmarkObjectWgFanout1M(b *testing.B)   { benchScale(b, "wgFanout", wgFanout, 1_000_000) }
func BenchmarkObjectWgSelfAdd10K(b *testing.B) { benchScale(b, "wgSelfAdd", wgSelfAdd, 10_000) }
func BenchmarkObjectWgSelfAdd100K(b *testing.B) {
	benchScale(b, "wgSelfAdd", wgSelfAdd, 100_000)
}
func BenchmarkObjectChanSenders10K(b *testing.B) { benchScale(b, "chanSenders", chanSenders, 10_000) }
func BenchmarkObjectChanSenders100K(b *testing.B) {
	benchScale(b, "chanSenders", chanSenders, 100_000)
}
func BenchmarkObjectChanUnbuffered10K(b *testing.B) {
	benchScale(b, "chanUnbuffered", chanUnbuffered, 10_000)
}
func BenchmarkObjectChanUnbuffered100K(b *testing.B) {
	benchScale(b, "chanUnbuffered", chanUnbuffered, 100_000)
}
func BenchmarkObjectMutexWaiters10K(b *testing.B) {
	benchScale(b, "mutexWaiters", mutexWaiters, 10_000)
}
func BenchmarkObjectMutexWaiters100K(b *testing.B) {
	benchScale(b, "mutexWaiters", mutexWaiters, 100_000)
}
func BenchmarkObjectOnceCallers10K(b *testing.B) { benchScale(b, "onceCallers", onceCallers, 10_000) }
func BenchmarkObjectOnceCallers100K(b *testing.B) {
	benchScale(b, "onceCallers", onceCallers, 100_000)
}
func BenchmarkObjectCondWaiters10K(b *testing.B) { benchScale(b, "condWaiters", condWaiters, 10_000) }
func BenchmarkObjectCondWaiters100K(b *testing.B) {
	benchScale(b, "condWaiters", condWaiters, 100_000)
}
func BenchmarkObjectSelectors10K(b *testing.B)  { benchScale(b, "selectors", selectors, 10_000) }
func BenchmarkObjectSelectors100K(b *testing.B) { benchScale(b, "selectors", selectors, 100_000) }

// mutexSequential: n workers lock one mutex one after another, each started once main
// has heard from the previous one (ordered by the channel, not only by the mutex).
func mutexSequential(n int) *trace.Trace {
	b := tracetest.New()
	m := b.Main()
	mu := b.Mutex()
	done := m.MakeChan(0, "main.go:5")
	for range n {
		w := m.Go("main.go:6")
		w.Lock(mu, "w.go:10")
		w.Unlock(mu, "w.go:11")
		w.Send(done, "w.go:12")
		m.Recv(done, "main.go:7")
		w.End()
	}
	m.End()
	return b.Trace()
}

func BenchmarkObjectMutexSequential10K(b *testing.B) {
	benchScale(b, "mutexSequential", mutexSequential, 10_000)
}
func BenchmarkObjectMutexSequential100K(b *testing.B) {
	benchScale(b, "mutexSequential", mutexSequential, 100_000)
}

// condSignals: n goroutines wait on one Cond; main signals each once, then they all return.
func condSignals(n int) *trace.Trace {
	b := tracetest.New()
	m := b.Main()
	mu := b.Mutex()
	c := b.Cond(mu)
	ops := make([]*tracetest.Op, n)
	for k := range ops {
		w := m.Go("main.go:6")
		w.Lock(mu, "main.go:7")
		ops[k] = w.CondWait(c, "main.go:8")
	}
	for range ops {
		m.Lock(mu, "main.go:10")
		m.Signal(c, "main.go:11")
		m.Unlock(mu, "main.go:12")
	}
	for _, o := range ops {
		o.Complete()
	}
	m.End()
	return b.Trace()
}

func BenchmarkObjectCondSignals10K(b *testing.B) { benchScale(b, "condSignals", condSignals, 10_000) }
func BenchmarkObjectCondSignals100K(b *testing.B) {
	benchScale(b, "condSignals", condSignals, 100_000)
}

// rwSequential: n workers read-lock one RWMutex one after another, each started once main
// has heard from the previous one; a writer locks it at the end.
func rwSequential(n int) *trace.Trace {
	b := tracetest.New()
	m := b.Main()
	rw := b.RWMutex()
	done := m.MakeChan(0, "main.go:5")
	for range n {
		w := m.Go("main.go:6")
		w.RLock(rw, "w.go:10")
		w.RUnlock(rw, "w.go:11")
		w.Send(done, "w.go:12")
		m.Recv(done, "main.go:7")
		w.End()
	}
	m.Lock(rw, "main.go:8")
	m.Unlock(rw, "main.go:9")
	m.End()
	return b.Trace()
}

func BenchmarkObjectRWSequential10K(b *testing.B) {
	benchScale(b, "rwSequential", rwSequential, 10_000)
}
func BenchmarkObjectRWSequential100K(b *testing.B) {
	benchScale(b, "rwSequential", rwSequential, 100_000)
}
