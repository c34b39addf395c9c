package analysis

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// Traces with many goroutines, for the analysis's memory and time as the goroutine count
// grows (BENCHMARKS.md, "Analysis at scale").

// blockers: main spawns n goroutines that each block once, forever, receiving from one
// channel nobody sends on (the test that leaks a goroutine per request).
func blockers(n int) *trace.Trace {
	b := tracetest.New()
	m := b.Main()
	c := m.MakeChan(0, "main.go:5")
	for range n {
		w := m.Go("main.go:6")
		w.Pending().Recv(c, "main.go:7")
	}
	m.End()
	return b.Trace()
}

// spawns: main spawns n goroutines that record nothing (a trace of bare spawn records, the
// smallest input per goroutine).
func spawns(n int) *trace.Trace {
	b := tracetest.New()
	m := b.Main()
	for range n {
		m.Go("main.go:6")
	}
	return b.Trace()
}

// waves: the fan-out/fan-in of a spawn-heavy test, twice. Main starts n workers; each takes
// a shared mutex, sends its result on a buffered channel, calls Done and ends; main
// collects the results and waits. The second wave's workers start from a clock that knows
// every worker of the first.
func waves(n int) *trace.Trace {
	b := tracetest.New()
	m := b.Main()
	mu := b.Mutex()
	for wave := range 2 {
		wg := b.WaitGroup()
		res := m.MakeChan(64, "main.go:5")
		m.Add(wg, int64(n), "main.go:6")
		ws := make([]*tracetest.G, n)
		for k := range ws {
			ws[k] = m.Go("main.go:7")
		}
		for k, w := range ws {
			w.Lock(mu, "work.go:10")
			w.Unlock(mu, "work.go:11")
			w.Send(res, "work.go:12")
			w.Done(wg, "work.go:13")
			w.End()
			if k%64 == 63 || k == n-1 { // main drains the buffer as it fills
				for range k%64 + 1 {
					m.Recv(res, fmt.Sprintf("main.go:%d", 8+wave))
				}
			}
		}
		m.Wait(wg, "main.go:10")
	}
	m.End()
	return b.Trace()
}

// lockers: main spawns n goroutines that each lock and unlock a mutex of their own (a
// per-request struct's), then block once on a shared channel.
func lockers(n int) *trace.Trace {
	b := tracetest.New()
	m := b.Main()
	c := m.MakeChan(0, "main.go:5")
	for range n {
		w := m.Go("main.go:6")
		mu := b.Mutex()
		w.Lock(mu, "req.go:10")
		w.Unlock(mu, "req.go:11")
		w.Pending().Recv(c, "main.go:7")
	}
	m.End()
	return b.Trace()
}

var scaleCache = map[string]*trace.Trace{}

// benchScale analyzes the trace gen(n) and reports, besides time and allocations, the
// events per CPU-second and the process's peak resident memory during the runs.
func benchScale(b *testing.B, name string, gen func(int) *trace.Trace, n int) {
	key := name + strconv.Itoa(n)
	tr := scaleCache[key]
	if tr == nil {
		tr = gen(n)
		scaleCache[key] = tr
	}
	ev := float64(len(tr.Events))
	runtime.GC()
	debug.FreeOSMemory()
	base := resetPeakRSS(b)
	cpu0 := cpuSeconds()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		Analyze(tr)
	}
	b.StopTimer()
	cpu := cpuSeconds() - cpu0
	b.ReportMetric(ev*float64(b.N)/cpu, "events/cpu-s")
	b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
	if peak := peakRSS(b); peak > 0 {
		// the analysis's share: the peak less what was resident before (the trace, the test)
		b.ReportMetric(float64(peak-base)/(1<<20), "peak-MB")
	}
}

// resetPeakRSS resets the kernel's peak resident size of this process (Linux: writing 5 to
// clear_refs) and returns the current resident size in bytes (0 where unsupported).
func resetPeakRSS(b *testing.B) int64 {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return 0
	}
	return procStatus(b, "VmRSS:")
}

// peakRSS returns the peak resident size of this process in bytes (0 where unsupported).
func peakRSS(b *testing.B) int64 { return procStatus(b, "VmHWM:") }

func procStatus(b *testing.B, field string) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range bytes.Lines(data) {
		if v, ok := bytes.CutPrefix(line, []byte(field)); ok {
			var kb int64
			if _, err := fmt.Sscanf(string(v), "%d kB", &kb); err != nil {
				b.Fatalf("/proc/self/status %s%s: %v", field, v, err)
			}
			return kb << 10
		}
	}
	return 0
}

func BenchmarkScaleBlockers5K(b *testing.B)  { benchScale(b, "blockers", blockers, 5_000) }
func BenchmarkScaleBlockers10K(b *testing.B) { benchScale(b, "blockers", blockers, 10_000) }
func BenchmarkScaleBlockers20K(b *testing.B) { benchScale(b, "blockers", blockers, 20_000) }
func BenchmarkScaleSpawns20K(b *testing.B)   { benchScale(b, "spawns", spawns, 20_000) }
func BenchmarkScaleWaves10K(b *testing.B)    { benchScale(b, "waves", waves, 10_000) }

// The scale traces are what they claim: the blockers leak, the waves are clean.
func TestScaleTraces(t *testing.T) {
	r := Analyze(blockers(50))
	if len(r.Findings) == 0 {
		t.Errorf("blockers(50): no finding, want the leaked receivers")
	}
	if r := Analyze(waves(100)); len(r.Findings) != 0 {
		t.Errorf("waves(100): findings %v, want none", summaries(r))
	}
	if r := Analyze(spawns(100)); len(r.Goroutines) != 101 {
		t.Errorf("spawns(100): %d goroutines, want 101", len(r.Goroutines))
	}
}

func BenchmarkScaleBlockers10(b *testing.B)   { benchScale(b, "blockers", blockers, 10) }
func BenchmarkScaleBlockers1K(b *testing.B)   { benchScale(b, "blockers", blockers, 1_000) }
func BenchmarkScaleBlockers100K(b *testing.B) { benchScale(b, "blockers", blockers, 100_000) }
func BenchmarkScaleSpawns60K(b *testing.B)    { benchScale(b, "spawns", spawns, 60_000) }
func BenchmarkScaleWaves100K(b *testing.B)    { benchScale(b, "waves", waves, 100_000) }
func BenchmarkScaleLockers20K(b *testing.B)   { benchScale(b, "lockers", lockers, 20_000) }
