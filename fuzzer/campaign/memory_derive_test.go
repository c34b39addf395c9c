package campaign

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/analysis/trace/tracetest"
	"github.com/goweave/goweave/fuzzer/build"
	"github.com/goweave/goweave/fuzzer/run"
)

// poolTrace writes the trace of a pool's test of the shape of ants' TestRestCodeCoverage
// (2.9M events of 60,018 goroutines), small: main hands each of n tasks to a new worker
// over the worker's channel, and each worker reports back to main over one shared
// channel, so that main's clock, and every later event's, names every worker: the
// per-event clocks the strategies need grow with workers times events, while the
// analysis, which retires what no one can learn any more, stays small. One worker is
// left waiting for a task: a leak, a finding.
func poolTrace(t testing.TB, n int) (path string, events int) {
	b := tracetest.New()
	m := b.Main()
	done := m.MakeChan(n, "pool.go:9")
	for range n {
		w := m.Go("pool.go:10")
		c := m.MakeChan(1, "pool.go:11")
		m.Send(c, "pool.go:12")
		w.Recv(c, "worker.go:20")
		w.Send(done, "worker.go:21")
		m.Recv(done, "pool.go:13")
		w.End()
	}
	idle := m.Go("pool.go:10")
	c := m.MakeChan(1, "pool.go:11")
	idle.Pending().Recv(c, "worker.go:20")
	m.End()
	path = filepath.Join(t.TempDir(), "run.trace")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, b.Len()
}

// Deriving schedules from a run counts against its analysis's budget: a run whose
// analysis fits but whose per-event clocks, names and orders would not gets no schedules,
// allocates little trying (18 MB for this 35,005-event trace and its 14 MB budget; the
// bound, four times the budget, leaves room for what other goroutines of the test process
// allocate meanwhile; computing the clocks whatever they cost and deriving from them, as
// before, allocated 247 MB) and the report says so. With the memory, the same run gives
// schedules.
func TestDerivationWithinBudget(t *testing.T) {
	path, events := poolTrace(t, 5000)
	bin := &build.TestBinary{Package: "p", Dir: t.TempDir()}
	// The analysis and the names fit; the clocks beside them do not.
	budget := int64(events)*(analysis.BytesPerEvent+deriveBytesPerEvent) + 2<<20
	ar := inspect(bin, "T", 1, nil, &run.Run{Trace: path, Status: run.StatusPass}, true, budget, nil, analyzeTrace)
	defer ar.dropTrace()
	if ar.Analysis == nil || len(ar.Findings) == 0 {
		t.Fatalf("the run was not analyzed within %d bytes, or found nothing: %v", budget, ar.TraceErr)
	}
	st, err := newSteeringStrategy("auto", 1)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	reqs := st.Mutate(ar)
	runtime.ReadMemStats(&after)
	if allocated := int64(after.TotalAlloc - before.TotalAlloc); allocated > 4*budget {
		t.Errorf("deriving schedules allocated %d MB, over four times the run's budget of %d MB", allocated>>20, budget>>20)
	}
	if len(reqs) != 0 {
		t.Errorf("%d schedules derived past the budget", len(reqs))
	}
	c := &campaign{tests: []*testState{{bin: bin, name: "T", strategy: st}}}
	if w := c.derivationWarnings(); len(w) != 1 || !strings.Contains(w[0], "no schedules derived from p.T run 1") || !strings.Contains(w[0], "-analysis-memory") {
		t.Errorf("warnings %q, want one naming the run and -analysis-memory", w)
	}

	unbounded := inspect(bin, "T", 2, nil, &run.Run{Trace: path, Status: run.StatusPass}, true, -1, nil, analyzeTrace)
	defer unbounded.dropTrace()
	st2, _ := newSteeringStrategy("auto", 1)
	if reqs := st2.Mutate(unbounded); len(reqs) == 0 {
		t.Error("no schedules derived from the run without a budget")
	}
	if w := (&campaign{tests: []*testState{{bin: bin, name: "T", strategy: st2}}}).derivationWarnings(); len(w) != 0 {
		t.Errorf("warnings without a budget: %q", w)
	}
}

// A run too large to derive schedules from within its budget is not signed either: its
// signature (names and execution graph) costs about as much as the derivation's names.
func TestSignatureWithinBudget(t *testing.T) {
	path, events := poolTrace(t, 50)
	tr, err := trace.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	need := int64(events) * (analysis.BytesPerEvent + deriveBytesPerEvent)
	if got, want := signatureWithin(tr, need), signature(tr); got != want || got == "" {
		t.Errorf("signature within %d bytes: %q, want %q", need, got, want)
	}
	if got := signatureWithin(tr, need-1); got != "" {
		t.Errorf("signature past the budget: %q, want none", got)
	}
	if got := signatureWithin(tr, 0); got == "" {
		t.Error("no signature without a budget")
	}
}

// The schedules derived from one run stay queued after the run is dropped: they take at
// most a quarter of its analysis's budget, the first proposals kept, and the report says so.
func TestDerivedRecipesWithinShare(t *testing.T) {
	path, _ := poolTrace(t, 5000)
	bin := &build.TestBinary{Package: "p", Dir: t.TempDir()}
	total := func(reqs []*RunRequest) (n int) {
		for _, r := range reqs {
			n += len(r.Recipe)
		}
		return n
	}
	free := inspect(bin, "T", 1, nil, &run.Run{Trace: path, Status: run.StatusPass}, true, -1, nil, analyzeTrace)
	defer free.dropTrace()
	st, _ := newSteeringStrategy("auto", 1)
	all := st.Mutate(free)
	const budget = 32 << 20
	if total(all) <= budget/recipeShare {
		t.Fatalf("the run's schedules take %d bytes without a budget: not enough to test their share", total(all))
	}
	ar := inspect(bin, "T", 2, nil, &run.Run{Trace: path, Status: run.StatusPass}, true, budget, nil, analyzeTrace)
	defer ar.dropTrace()
	st2, _ := newSteeringStrategy("auto", 1)
	kept := st2.Mutate(ar)
	if n := total(kept); n > budget/recipeShare || len(kept) == 0 {
		t.Errorf("%d schedules of %d bytes kept, want some within %d", len(kept), n, budget/recipeShare)
	}
	for i, r := range kept {
		if r.Key != all[i].Key {
			t.Errorf("kept schedule %d is %s, want the first proposals (%s)", i, r.Key, all[i].Key)
			break
		}
	}
	c := &campaign{tests: []*testState{{bin: bin, name: "T", strategy: st2}}}
	if w := c.derivationWarnings(); len(w) != 1 || !strings.Contains(w[0], "schedules derived from p.T run 2 stopped at 8 MB") {
		t.Errorf("warnings %q, want one saying where run 2's schedules stopped", w)
	}
}
