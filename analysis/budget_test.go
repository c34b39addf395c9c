package analysis

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
)

// Past its memory budget an analysis stops with a BudgetError naming the run and the
// figures, whether the trace alone is too much (before the walk) or the clocks grow past it
// (during the walk, soon after: the engine looks every few hundred events); within the
// budget it finds what Analyze finds.
func TestMemoryBudget(t *testing.T) {
	tr := spawns(5000)
	fixed := int64(len(tr.Events)) * bytesPerEvent
	for _, c := range []struct {
		name   string
		budget int64
	}{
		{"the events alone", fixed / 2},
		{"the clocks", fixed + 256<<10},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := AnalyzeWith(tr, Options{Run: "run-000007", MemoryBudget: c.budget})
			var be *BudgetError
			if !errors.As(err, &be) {
				t.Fatalf("error %v, want a BudgetError", err)
			}
			if be.Held <= c.budget || be.Held > c.budget+1<<20 || be.Budget != c.budget || be.Goroutines != 5001 {
				t.Errorf("%+v: want held just past the budget of %d, 5001 goroutines", be, c.budget)
			}
			for _, s := range []string{"run-000007", "memory budget of", " MB", "5001 goroutines"} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("message %q does not say %q", err, s)
				}
			}
		})
	}
	b := blockers(300)
	r, err := AnalyzeWith(b, Options{Run: "ok", MemoryBudget: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := summaries(r), summaries(Analyze(b)); strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) == 0 {
		t.Errorf("within the budget: findings %v, want %v", got, want)
	}
	if _, err := r.ClocksWithin(); err != nil {
		t.Errorf("ClocksWithin: %v", err)
	}
	r, err = AnalyzeWith(tr, Options{Run: "clocks", MemoryBudget: fixed + 8<<20})
	if err != nil {
		t.Fatal(err)
	}
	r.opts.MemoryBudget = fixed // the per-event clocks need more
	if _, err := r.ClocksWithin(); !errors.As(err, new(*BudgetError)) || !strings.Contains(err.Error(), "clocks") {
		t.Errorf("ClocksWithin past the budget: %v, want a BudgetError naming the run", err)
	}
}

// A trace file too large for the budget is refused from its size, before it is read.
func TestAnalyzeFileRefusesHugeTraceUnread(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.trace")
	if err := os.WriteFile(path, make([]byte, 1<<20), 0o644); err != nil { // not even a trace
		t.Fatal(err)
	}
	_, err := AnalyzeFile(path, Options{MemoryBudget: 1 << 20})
	var be *BudgetError
	if !errors.As(err, &be) || be.Run != path || be.Events != 1<<20/trace.RecordSize {
		t.Fatalf("error %v, want a BudgetError for %s from its size", err, path)
	}
	if _, err := AnalyzeFile(path, Options{MemoryBudget: 1 << 30}); err == nil || errors.As(err, &be) {
		t.Errorf("within the budget the file is read (and rejected as no trace): %v", err)
	}
}

func TestDefaultMemoryBudget(t *testing.T) {
	b := DefaultMemoryBudget()
	if total := memTotal(); b <= 0 || total > 0 && b > total/4 || b > MaxDefaultMemoryBudget {
		t.Errorf("DefaultMemoryBudget() = %d, want a quarter of the machine's %d, at most %d", b, total, MaxDefaultMemoryBudget)
	}
}

// Analyses that together would pass the budget run one after the other; one alone runs
// whatever its size.
func TestMemPool(t *testing.T) {
	p := newMemPool()
	p.reserve(1500, 1000) // alone: runs though larger than the limit
	p.release(1500)
	p.reserve(600, 1000)
	p.reserve(300, 1000) // fits beside
	reserved := make(chan bool)
	go func() {
		p.reserve(600, 1000)
		reserved <- true
	}()
	for {
		p.mu.Lock()
		w := p.waits
		p.mu.Unlock()
		if w > 0 {
			break
		}
		runtime.Gosched()
	}
	select {
	case <-reserved:
		t.Fatalf("a reservation passing the limit beside others did not wait")
	default:
	}
	p.release(300)
	p.release(600)
	<-reserved
	if p.held != 600 || p.running != 1 {
		t.Errorf("held %d by %d, want 600 by 1", p.held, p.running)
	}
}

// A budgeted analysis sheds the engine once its detectors ran; what callers read stays.
func TestAnalyzeWithSheds(t *testing.T) {
	tr := synthetic(20000, 16, 3)
	want := Analyze(tr)
	r, err := AnalyzeWith(tr, Options{Run: "shed", MemoryBudget: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	if r.eng != nil {
		t.Errorf("the engine is still held after the detectors ran")
	}
	if !slices.Equal(summaries(r), summaries(want)) || len(r.ConcurrentPairs()) != len(want.ConcurrentPairs()) ||
		len(r.SelectPartners()) != len(want.SelectPartners()) || len(r.Goroutines) != len(want.Goroutines) {
		t.Errorf("findings, pairs, select partners or goroutines differ from Analyze's")
	}
	c, wc := r.Clocks(), want.Clocks()
	for i := 0; i+7 < len(tr.Events); i += 97 {
		if c.HappensBefore(i, i+7) != wc.HappensBefore(i, i+7) {
			t.Fatalf("HappensBefore(%d, %d) differs", i, i+7)
		}
	}
}

// A closed Stop ends the walk: ErrStopped, no result; an open one changes nothing.
func TestAnalyzeWithStop(t *testing.T) {
	tr := synthetic(20000, 16, 4)
	stop := make(chan struct{})
	if r, err := AnalyzeWith(tr, Options{Stop: stop}); err != nil || r == nil {
		t.Fatalf("open Stop: %v", err)
	}
	close(stop)
	if r, err := AnalyzeWith(tr, Options{Stop: stop}); !errors.Is(err, ErrStopped) || r != nil {
		t.Errorf("closed Stop: %v, %v; want ErrStopped and no result", r, err)
	}
	analyses.mu.Lock()
	held, running := analyses.held, analyses.running
	analyses.mu.Unlock()
	if running != 0 || held != 0 {
		t.Errorf("the pool still holds %d bytes for %d analyses", held, running)
	}
}
