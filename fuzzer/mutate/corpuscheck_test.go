package mutate_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer"
	"github.com/goweave/goweave/fuzzer/mutate"
	"github.com/goweave/goweave/fuzzer/schedule"
)

func TestCorpusInvariants(t *testing.T) {
	dir := "/work/shared/corpus"
	traces := map[string]*trace.Trace{}
	err := fuzzer.Record(context.Background(), fuzzer.Config{Dir: dir, OutDir: t.TempDir(), RunTimeout: 20 * time.Second},
		func(r *fuzzer.AnalyzedRun) {
			if r.Recorded != nil {
				traces[filepath.Base(r.Package)+"/"+r.Test] = r.Recorded
			}
		})
	if err != nil {
		t.Log(err)
	}
	for name, rec := range traces {
		hb := newVCHB(rec)
		names := schedule.Name(rec)
		total := 0
		for _, s := range []mutate.Strategy{mutate.NewGFuzz(1), mutate.NewGoPie(1), mutate.NewFlow(), mutate.NewPrefix(1, nil)} {
			muts := s.Next(&mutate.Run{Trace: rec, HB: hb})
			total += len(muts)
			if s.Name() == "flow" && (name[:4] == "once" || name[:4] == "chan") {
				for _, m := range muts {
					t.Logf("%s flow: %+v", name, m.Schedule.Delays)
				}
				for _, p := range mutate.FlowPairs(&mutate.Run{Trace: rec, HB: hb}) {
					t.Logf("pair %v", p)
				}
				for i, op := range names.Ops {
					if op.Kind == trace.KindOnceDo {
						t.Logf("once %d %v %v", i, op, rec.Events[i].Flags)
					}
				}
			}
			for _, m := range muts {
				if _, err := schedule.Marshal(m.Schedule); err != nil {
					t.Errorf("%s %s: %v", name, s.Name(), err)
				}
				if o := m.Schedule.Order; o != nil {
					seen := map[schedule.OpID]bool{}
					for a := range o.Ops {
						if seen[o.Ops[a]] {
							t.Errorf("%s %s: %v twice", name, s.Name(), o.Ops[a])
						}
						seen[o.Ops[a]] = true
						for b := a + 1; b < len(o.Ops); b++ {
							ea, ok1 := names.Event(o.Ops[a])
							eb, ok2 := names.Event(o.Ops[b])
							if !ok1 || !ok2 || hb.HappensBefore(eb, ea) {
								t.Errorf("%s %s: bad order %v / %v", name, s.Name(), o.Ops[a], o.Ops[b])
							}
						}
					}
				}
			}
		}
		t.Logf("%-40s events %4d ids %2d mutations %3d", name, len(rec.Events), len(names.IDs), total)
	}
}
