package analysis

import (
	"slices"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// workerPool is the shape of a goroutine pool's test (ants' TestRestCodeCoverage: 2.9M
// events of 60,018 goroutines): main submits n tasks, each to a new worker over the
// worker's own buffered channel; a worker runs its task, comes back under the pool's lock,
// signals the pool's Cond (which main waits on while live workers are busy) and ends. One
// more worker is left waiting for a task that never comes: a leak, so that there are
// findings to compare.
func workerPool(n, live int) *trace.Trace {
	b := tracetest.New()
	m := b.Main()
	mu := b.Mutex()
	cond := b.Cond(mu)
	type worker struct {
		g *tracetest.G
		c tracetest.Chan
	}
	comeBack := func(w worker) {
		w.g.Lock(mu, "worker.go:30")
		w.g.Signal(cond, "worker.go:31")
		w.g.Unlock(mu, "worker.go:32")
		w.g.End()
	}
	var busy []worker
	for range n {
		if len(busy) == live { // the pool is full: wait for a worker to come back
			m.Lock(mu, "pool.go:20")
			wait := m.CondWait(cond, "pool.go:21")
			comeBack(busy[0])
			busy = busy[1:]
			wait.Complete()
			m.Unlock(mu, "pool.go:22")
		}
		w := worker{g: m.Go("pool.go:10"), c: m.MakeChan(1, "pool.go:11")}
		m.Send(w.c, "pool.go:12")
		w.g.Recv(w.c, "worker.go:20")
		busy = append(busy, w)
	}
	for _, w := range busy {
		comeBack(w)
	}
	idle := m.Go("pool.go:10")
	c := m.MakeChan(1, "pool.go:11")
	idle.Pending().Recv(c, "worker.go:20")
	m.End()
	return b.Trace()
}

// A pool's trace of tens of thousands of short workers is analyzed within a budget of its
// events plus 16 MB, and finds what the same pool with 200 workers finds. The clocks of its
// Cond's wakes and of its workers' channels used to be kept to the end (retire.go): its
// clocks held 107 MB (5 MB now) and the analysis stopped at the budget.
func TestHugePoolWithinBudget(t *testing.T) {
	small := summaries(Analyze(workerPool(200, 64)))
	if len(small) == 0 {
		t.Fatal("the small pool has no finding to compare")
	}
	big := workerPool(30_000, 2_000)
	budget := int64(len(big.Events))*bytesPerEvent + 16<<20
	r, err := AnalyzeWith(big, Options{Run: "pool", MemoryBudget: budget})
	if err != nil {
		t.Fatalf("%d events: %v", len(big.Events), err)
	}
	if got := summaries(r); !slices.Equal(got, small) {
		t.Errorf("findings of the big pool:\n%v\nwant the small one's:\n%v", got, small)
	}
}
