package mutate_test

import (
	"context"
	"github.com/goweave/goweave/analysis"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer"
	"github.com/goweave/goweave/fuzzer/mutate"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// TestCorpusSchedules records one plain run of every kernel of the acceptance corpus
// (../shared/corpus from the repository root) and runs every strategy on it: each proposed
// schedule must encode, name only operations of the trace, and never order an operation
// before one that happens before it. The flow kernels must get the delay their comments
// describe, and the select-fuzzing kernels a select preference.
func TestCorpusSchedules(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every corpus kernel")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Skipf("no corpus at %s", dir)
	}
	// a worktree's ../shared may be a symlink: the recorder takes the module's files for
	// user code by the path given, and the compiler records them by the resolved one
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		t.Fatal(err)
	}
	traces := map[string]*trace.Trace{}
	err = fuzzer.Record(context.Background(), fuzzer.Config{Dir: dir, OutDir: t.TempDir(), RunTimeout: 20 * time.Second},
		func(r *fuzzer.AnalyzedRun) {
			if r.Recorded != nil {
				traces[filepath.Base(r.Package)] = r.Recorded
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	if len(traces) < 20 {
		t.Fatalf("only %d kernels left a trace", len(traces))
	}
	// kernel -> (delayed line, line it waits for), from the kernels' comments
	flow := map[string][2]int{"once_flow": {20, 28}, "chan_order_flow": {32, 37}}
	selectKernels := []string{"select_gfuzz", "close_of_nil_select", "unlock_of_unlocked_select", "leak_chan_timeout"}
	for name, rec := range traces {
		hb := analysis.Compute(rec).Clocks()
		names := schedule.Name(rec)
		got := map[string][]mutate.Mutation{}
		for _, s := range []mutate.Strategy{mutate.NewGFuzz(1), mutate.NewGoPie(1), mutate.NewFlow(), mutate.NewPrefix(1, nil)} {
			muts := s.Next(&mutate.Run{Trace: rec, HB: hb})
			got[s.Name()] = muts
			for _, m := range muts {
				checkSchedule(t, name+" "+s.Name(), m.Schedule, names, rec, hb)
			}
		}
		if want, ok := flow[name]; ok {
			found := false
			for _, m := range got["flow"] {
				d := m.Schedule.Delays[0]
				found = found || d.Op.Pos.Line == want[0] && d.Until.Pos.Line == want[1]
			}
			if !found {
				t.Errorf("%s: no flow delay of line %d until line %d: %+v", name, want[0], want[1], got["flow"])
			}
		}
		for _, k := range selectKernels {
			if k == name && len(got["gfuzz"]) == 0 {
				t.Errorf("%s: no select preference proposed", name)
			}
		}
	}
}

func checkSchedule(t *testing.T, what string, s *schedule.Schedule, names *schedule.Names, rec *trace.Trace, hb mutate.HB) {
	t.Helper()
	if _, err := schedule.Marshal(s); err != nil {
		t.Errorf("%s: %v", what, err)
	}
	var ops []schedule.OpID
	for _, d := range s.Delays {
		ops = append(ops, d.Op, d.Until)
	}
	if s.Order != nil {
		ops = append(ops, s.Order.Ops...)
	}
	for _, op := range ops {
		if i, ok := names.Event(op); !ok || rec.Events[i].Kind != op.Kind {
			t.Errorf("%s: names %v, which the trace does not have", what, op)
		}
	}
	if s.Order == nil {
		return
	}
	seen := map[schedule.OpID]bool{}
	for a, op := range s.Order.Ops {
		if seen[op] {
			t.Errorf("%s: %v admitted twice", what, op)
		}
		seen[op] = true
		ea, _ := names.Event(op)
		for _, later := range s.Order.Ops[a+1:] {
			eb, _ := names.Event(later)
			if nested(rec, ea, eb) {
				continue // the runtime admits a goroutine's operations as they start
			}
			if hb.HappensBefore(eb, ea) {
				t.Errorf("%s: order admits %v before %v, which happens before it", what, op, later)
			}
		}
	}
	for _, sp := range s.Selects {
		if !strings.HasSuffix(sp.Pos.File, ".go") {
			t.Errorf("%s: select preference at %v", what, sp.Pos)
		}
	}
}

// nested reports whether event b runs inside event a of the same goroutine (an operation of
// the f of the Once.Do a): a starts first and ends last, so program order by completion
// puts b first while the runtime admits a first.
func nested(rec *trace.Trace, a, b int) bool {
	ea, eb := &rec.Events[a], &rec.Events[b]
	return ea.G == eb.G && ea.Pre < eb.Pre && (eb.Post != 0 && eb.Post < ea.Post)
}
