package analysis

import (
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"runtime/debug"
	"syscall"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// synthetic builds a trace of about n events over ng goroutines with a mix of operations
// like a server's: channel hand-offs (unbuffered and buffered), selects, short critical
// sections (some nested, some RWMutex readers), WaitGroups and Once (no Cond).
func synthetic(n, ng int, seed int64) *trace.Trace {
	rng := rand.New(rand.NewSource(seed))
	b := tracetest.New()
	m := b.Main()
	gs := make([]*tracetest.G, ng)
	gs[0] = m
	for i := 1; i < ng; i++ {
		gs[i] = m.Go(fmt.Sprintf("main.go:%d", 10+i%4))
	}
	// each goroutine receives on its own two channels (one unbuffered, one buffered):
	// the sharded pattern, so receives on one channel never race
	own := make([][2]tracetest.Chan, ng)
	for i := range own {
		own[i] = [2]tracetest.Chan{m.MakeChan(0, "main.go:20"), m.MakeChan(4, "main.go:21")}
	}
	var mus, rws []tracetest.Mutex
	for i := 0; i < 16; i++ {
		mus = append(mus, b.Mutex())
		rws = append(rws, b.RWMutex())
	}
	once := b.Once()
	// source sites: goroutines play 8 roles (a worker, a producer, ...); each role has one
	// site per operation kind, as a loop body does
	role := 0
	pos := func(k int) string { return fmt.Sprintf("w%d.go:%d", role, 10+k/5*5+k%5) }
	for b.Len() < n {
		gi, hi := rng.Intn(ng), rng.Intn(ng)
		for hi == gi {
			hi = rng.Intn(ng)
		}
		g, h := gs[gi], gs[hi]
		role = gi % 8
		k := rng.Intn(100)
		switch {
		case k < 30: // hand-off to h
			c := own[hi][k%2]
			g.Send(c, pos(k))
			h.Recv(c, pos(k+1))
		case k < 40: // h selects over its two channels; g's send serves one case
			c := own[hi][k%2]
			g.Send(c, pos(k))
			h.Select(pos(k+2), k%2, tracetest.RecvValueCase(own[hi][0]), tracetest.RecvValueCase(own[hi][1]))
			other := own[hi][1-k%2] // then the other case's channel gets a value from a third goroutine
			z := gs[(gi+1)%ng]
			if z == h {
				z = gs[(gi+2)%ng]
			}
			z.Send(other, pos(k+3))
			h.Recv(other, pos(k+4))
		case k < 75: // critical section, sometimes nested in a fixed order
			mu := rng.Intn(len(mus))
			g.Lock(mus[mu], pos(k))
			if k < 45 && mu+1 < len(mus) {
				g.Lock(mus[mu+1], pos(k+1))
				g.Unlock(mus[mu+1], pos(k+2))
			}
			g.Unlock(mus[mu], pos(k+3))
		case k < 85: // readers
			rw := rws[rng.Intn(len(rws))]
			g.RLock(rw, pos(k))
			g.RUnlock(rw, pos(k+1))
		case k < 95: // g hands work to h and waits for it
			wg := b.WaitGroup()
			g.Add(wg, 1, pos(k))
			g.Send(own[hi][0], pos(k+1))
			h.Recv(own[hi][0], pos(k+2))
			h.Done(wg, pos(k+3))
			g.Wait(wg, pos(k+4))
		default:
			g.OnceDo(once, pos(k))
		}
	}
	return b.Trace()
}

var syntheticCache = map[int]*trace.Trace{}

func benchAnalyze(b *testing.B, n int) {
	tr := syntheticCache[n]
	if tr == nil {
		tr = synthetic(n, 64, 1)
		syntheticCache[n] = tr
	}
	ev := float64(len(tr.Events))
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu0 := cpuSeconds()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Analyze(tr)
	}
	b.StopTimer()
	// CPU time, not wall time, is what the analysis costs on a shared, noisy machine
	b.ReportMetric(ev*float64(b.N)/(cpuSeconds()-cpu0), "events/cpu-s")
	b.ReportMetric(ev*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/ev, "alloc-bytes/event")
}

func BenchmarkAnalyze1M(b *testing.B)  { benchAnalyze(b, 1_000_000) }
func BenchmarkAnalyze10M(b *testing.B) { benchAnalyze(b, 10_000_000) }

// The synthetic mix itself has no bugs: the benchmark measures the clean path.
func TestSyntheticTraceIsClean(t *testing.T) {
	r := Analyze(synthetic(20000, 16, 2))
	wantNo(t, r)
}

// BenchmarkClocks100K: the per-event clocks the fuzzer queries, on a 100K-event trace.
func BenchmarkClocks100K(b *testing.B) {
	tr := synthetic(100_000, 64, 1)
	r := Compute(tr)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.clocks = nil
		r.Clocks()
	}
	b.ReportMetric(float64(len(tr.Events))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// cpuSeconds is the process's user+system CPU time (every thread, the GC's included).
func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

// BenchmarkKeptTrace analyzes the recorded trace file GOWEAVE_BENCH_TRACE names (a real
// suite's: BENCHMARKS.md, "Huge traces"), within no budget, and reports the CPU time and
// the peak resident memory of the analysis beside the decoded trace. Skipped without it.
func BenchmarkKeptTrace(b *testing.B) {
	path := os.Getenv("GOWEAVE_BENCH_TRACE")
	if path == "" {
		b.Skip("GOWEAVE_BENCH_TRACE names no trace")
	}
	tr, err := trace.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	debug.FreeOSMemory()
	base := resetPeakRSS(b)
	cpu0 := cpuSeconds()
	b.ResetTimer()
	for range b.N {
		if _, err := AnalyzeWith(tr, Options{MemoryBudget: -1}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
	if peak := peakRSS(b); peak > 0 {
		b.ReportMetric(float64(peak-base)/(1<<20), "peak-MB")
	}
}
