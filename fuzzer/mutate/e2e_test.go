package mutate_test

import (
	"context"
	"github.com/goweave/goweave/analysis"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer"
	"github.com/goweave/goweave/fuzzer/mutate"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// lineOf returns the 1-based line of the first line of file containing s.
func lineOf(t *testing.T, file, s string) int {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	t.Fatalf("%q not in %s", s, file)
	return 0
}

// TestRecordedTrace records testdata/e2e with the goweave runtime and checks that names,
// signatures and every strategy's schedules are consistent with a real trace.
func TestRecordedTrace(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary with the goweave runtime")
	}
	dir, err := filepath.Abs(filepath.Join("testdata", "e2e"))
	if err != nil {
		t.Fatal(err)
	}
	var rec *trace.Trace
	err = fuzzer.Record(context.Background(), fuzzer.Config{Dir: dir, OutDir: t.TempDir(), RunTimeout: 30 * time.Second},
		func(r *fuzzer.AnalyzedRun) {
			if r.TraceErr != nil {
				t.Errorf("trace: %v", r.TraceErr)
			}
			rec = r.Recorded
		})
	if err != nil {
		t.Fatal(err)
	}
	if rec == nil {
		t.Fatal("no trace recorded")
	}
	src := filepath.Join(dir, "e2e_test.go")
	lockLine := lineOf(t, src, "\t\t\tmu.Lock()")
	sendLine := lineOf(t, src, "results <- v")
	selectLine := lineOf(t, src, "select {")

	names := schedule.Name(rec)
	var file string
	for i, op := range names.Ops {
		if op.Kind == trace.KindSelect {
			file = op.Pos.File
			if op.G != schedule.TestGoroutine || op.N != 1 || op.Pos.Line != selectLine {
				t.Errorf("select event %d named %v", i, op)
			}
		}
	}
	if file == "" {
		t.Fatalf("no select recorded; events:\n%v", rec.Events)
	}
	for _, g := range []schedule.GoID{"1.1", "1.2"} {
		lock := schedule.OpID{G: g, Kind: trace.KindLock, Pos: schedule.Pos{File: file, Line: lockLine}, N: 1}
		if i, ok := names.Event(lock); !ok || rec.Events[i].Kind != trace.KindLock {
			t.Errorf("worker %s: no %v (ids %v)", g, lock, names.IDs)
		}
	}

	hb := analysis.Compute(rec).Clocks()
	// Sanity of the test's happens-before: the first worker's Unlock precedes the other's Lock.
	var locks, unlocks []int
	for i, op := range names.Ops {
		if op.Pos.Line == lockLine && op.Kind == trace.KindLock {
			locks = append(locks, i)
		}
		if op.Kind == trace.KindUnlock && op.G != schedule.TestGoroutine {
			unlocks = append(unlocks, i)
		}
	}
	if len(locks) != 2 || len(unlocks) != 2 || !hb.HappensBefore(unlocks[0], locks[1]) || hb.HappensBefore(locks[1], locks[0]) {
		t.Fatalf("locks %v unlocks %v: vector clocks disagree with the recorded order", locks, unlocks)
	}
	run := func() *mutate.Run { return &mutate.Run{Trace: rec, HB: hb} }
	if a, b := mutate.Signature(run()), mutate.Signature(run()); a != b || len(a) != 32 {
		t.Errorf("signatures %q, %q", a, b)
	}
	strategies := []mutate.Strategy{mutate.NewGFuzz(1), mutate.NewGoPie(1), mutate.NewFlow(), mutate.NewPrefix(1, nil)}
	for _, s := range strategies {
		muts := s.Next(run())
		if len(muts) == 0 {
			t.Errorf("%s: no mutations of the first run", s.Name())
		}
		for _, m := range muts {
			b, err := schedule.Marshal(m.Schedule)
			if err != nil {
				t.Fatalf("%s: %v", s.Name(), err)
			}
			back, err := schedule.Unmarshal(b)
			if err != nil || !reflect.DeepEqual(back, m.Schedule) {
				t.Fatalf("%s: schedule does not survive its file: %v\n%s", s.Name(), err, b)
			}
			checkSchedule(t, s.Name(), m.Schedule, names, rec, hb)
		}
		if g, ok := s.(*mutate.GoPie); ok {
			t.Logf("gopie: %d proposed, %d pruned by happens-before", g.Proposed, g.Pruned)
		}
		switch s.Name() {
		case "gfuzz": // the only select flips to its other case, the timer
			want := schedule.SelectPreference{Pos: schedule.Pos{File: file, Line: selectLine}, Window: mutate.DefaultSelectWindow, Cases: []int{1}}
			if len(muts) != 1 || !reflect.DeepEqual(muts[0].Schedule.Selects, []schedule.SelectPreference{want}) {
				t.Errorf("gfuzz: %+v", muts)
			}
		case "flow": // the workers' Locks race (only the mutex orders them), so do their sends
			lines := map[int]bool{}
			for _, m := range muts {
				d := m.Schedule.Delays[0]
				if d.Op.Pos.Line != d.Until.Pos.Line || d.Op.G == d.Until.G {
					t.Errorf("flow: %+v", d)
				}
				lines[d.Op.Pos.Line] = true
			}
			if len(muts) != 2 || !lines[lockLine] || !lines[sendLine] {
				t.Errorf("flow: %+v", muts)
			}
		}
	}
}
