package replay

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/campaign"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// corpusDir is the shared acceptance corpus beside the checkout; tests skip without it.
func corpusDir(t *testing.T) string {
	t.Helper()
	dir, _ := filepath.Abs(filepath.Join("..", "..", "..", "shared", "corpus"))
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Skipf("no corpus at %s", dir)
	}
	return dir
}

// The predicted findings of the corpus, each confirmed by its rewrite in at least 9 of 10
// runs (the rates are logged: go test -run TestConfirmCorpusRates -v ./fuzzer/replay).
func TestConfirmCorpusRates(t *testing.T) {
	if testing.Short() {
		t.Skip("builds six corpus kernels and runs each 11 times")
	}
	corpus := corpusDir(t)
	const attempts = 10
	for _, k := range []struct{ kernel, kind string }{
		{"send_on_closed_predicted", "send-on-closed"},
		{"recv_on_closed_predicted", "recv-on-closed"},
		{"negative_waitgroup_predicted", "negative-waitgroup"},
		{"cyclic_deadlock_abba", "cyclic-deadlock"},
		{"rwmutex_recursive_rlock", "cyclic-deadlock"},
		{"mixed_deadlock_lock_chan", "mixed-deadlock"},
	} {
		t.Run(k.kernel, func(t *testing.T) {
			bin := buildForReplay(t, filepath.Join(corpus, k.kernel))
			test := bin.Tests[0]
			recorded := runUnder(t, bin, test, nil)
			var f *campaign.Finding
			for i := range recorded.Findings {
				if g := &recorded.Findings[i]; g.Kind == k.kind && g.Confidence == analysis.Predicted {
					f = g
				}
			}
			if f == nil {
				t.Fatalf("the recorded run predicts no %s: %+v", k.kind, recorded.Findings)
			}
			rewrites, notes, err := campaign.RewritesFor(recorded.Recorded, *f)
			if err != nil {
				t.Fatal(err)
			}
			sched, err := schedule.Unmarshal(rewrites[0])
			if err != nil {
				t.Fatal(err)
			}
			confirmed := 0
			var misses []string
			for range attempts {
				v := campaign.Judge(*f, runUnder(t, bin, test, sched))
				if v.Confirmed {
					confirmed++
				} else {
					misses = append(misses, v.String())
				}
			}
			t.Logf("%s %s: confirmed in %d/%d runs by %q", k.kernel, k.kind, confirmed, attempts, notes[0])
			if confirmed < attempts-1 {
				t.Errorf("confirmed in %d/%d runs; misses: %s", confirmed, attempts, strings.Join(misses, "; "))
			}
		})
	}
}

// A replay of a recorded run repeats the order of the operations on every object: which
// send each receive got its value from, the order of lock acquisitions, which Once.Do ran.
// The rate over all kernels must be at least 95%.
func TestReplayReproducesObjectOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("builds corpus kernels and runs each 11 times")
	}
	corpus := corpusDir(t)
	const attempts = 10
	same, total := 0, 0
	for _, kernel := range []string{"correct_cache_once", "correct_pipeline", "correct_worker_pool", "concurrent_recv", "send_on_closed_predicted", "recv_on_closed_predicted", "cyclic_deadlock_abba"} {
		bin := buildForReplay(t, filepath.Join(corpus, kernel))
		test := bin.Tests[0]
		recorded := runUnder(t, bin, test, nil)
		want := objectOrder(recorded.Recorded)
		if want == "" {
			t.Fatalf("%s: the recorded run orders no object", kernel)
		}
		sched := replayOf(recorded)
		n := 0
		for range attempts {
			got := objectOrder(runUnder(t, bin, test, sched).Recorded)
			if got == want {
				n++
			} else {
				t.Logf("%s: replay differs:\n got %s\nwant %s", kernel, got, want)
			}
		}
		t.Logf("%s: %d/%d replays repeat the recorded per-object order (%d ops in the schedule)", kernel, n, attempts, len(sched.Order.Ops))
		same += n
		total += attempts
	}
	rate := float64(same) / float64(total)
	t.Logf("per-object order reproduced in %d/%d replays (%.1f%%)", same, total, 100*rate)
	if rate < 0.95 {
		t.Errorf("per-object order reproduced in %.1f%% of replays, want >= 95%%", 100*rate)
	}
}

// objectOrder describes, per object named by its first operation, the order a run gave
// its operations: each value receive with the send it got the value from (or the close),
// the lock acquisitions in order, the Once.Do that ran.
func objectOrder(tr *trace.Trace) string {
	names := schedule.Name(tr)
	name := func(i int) string { return names.Ops[i].String() }
	objOf := func(e *trace.Event) uint64 {
		if c := chosen(e); c != nil {
			return c.Obj
		}
		return e.Obj
	}
	byObj := map[uint64][]int{}
	for i := range tr.Events {
		e := &tr.Events[i]
		if o := objOf(e); o != 0 && e.Kind != trace.KindGoSpawn && e.Kind != trace.KindGoEnd {
			byObj[o] = append(byObj[o], i)
		}
	}
	var lines []string
	for _, evs := range byObj {
		slices.SortFunc(evs, func(a, b int) int { return cmp.Compare(tr.Events[a].Pre, tr.Events[b].Pre) })
		sends := map[uint64]int{}
		closer := -1
		for _, i := range evs {
			e := &tr.Events[i]
			if e.Kind == trace.KindChanSend && e.A > 0 {
				sends[e.A] = i
			} else if c := chosen(e); c != nil && c.Send {
				sends[e.B] = i
			} else if e.Kind == trace.KindChanClose {
				closer = i
			}
		}
		var parts []string
		done := slices.Clone(evs)
		slices.SortFunc(done, func(a, b int) int { return cmp.Compare(tr.Events[a].Post, tr.Events[b].Post) })
		for _, i := range done {
			e := &tr.Events[i]
			if !e.Completed() {
				continue
			}
			switch {
			case e.Kind == trace.KindChanRecv || (chosen(e) != nil && !chosen(e).Send):
				seq := e.A
				if e.Kind == trace.KindSelect {
					seq = e.B
				}
				if s, ok := sends[seq]; ok && seq > 0 && !e.Flags.Has(trace.FlagClosed) {
					parts = append(parts, name(i)+"<-"+name(s))
				} else if closer >= 0 {
					parts = append(parts, name(i)+"<-close "+name(closer))
				}
			case e.Kind == trace.KindLock || e.Kind == trace.KindRLock ||
				((e.Kind == trace.KindTryLock || e.Kind == trace.KindTryRLock) && e.Flags.Has(trace.FlagSuccess)):
				parts = append(parts, "acquire "+name(i))
			case e.Kind == trace.KindOnceDo && e.Flags.Has(trace.FlagSuccess):
				parts = append(parts, "once "+name(i))
			}
		}
		if len(parts) > 0 {
			lines = append(lines, fmt.Sprintf("[%s] %s", objectName(tr, evs, name), strings.Join(parts, ", ")))
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// objectName names an object by the first of its operations to take effect: a channel's
// make, the first lock acquisition, the Once.Do that ran f (which took the Once when it
// began; its completion comes after f). A replay admits operations in that order, so the
// name is the same in a run and its replay that repeat the object's order. The first by
// request stamp is not: a goroutine that reached a Once first and was descheduled before
// taking it lost to one that came after, and a replay, which admits the winner first,
// cannot make the loser reach the Once first and still lose (3 recordings of
// correct_cache_once in 350; every replay of them then named the Once by its winner,
// BENCHMARKS.md 2026-11-28).
func objectName(tr *trace.Trace, evs []int, name func(int) string) string {
	effect := func(i int) uint64 {
		e := &tr.Events[i]
		switch {
		case !e.Completed():
			return math.MaxUint64
		case e.Kind == trace.KindOnceDo && e.Flags.Has(trace.FlagSuccess):
			return e.Pre
		}
		return e.Post
	}
	first := slices.MinFunc(evs, func(a, b int) int { return cmp.Compare(effect(a), effect(b)) })
	return name(first)
}

// chosen is the case a completed select took; nil for default or another kind.
func chosen(e *trace.Event) *trace.Case {
	if e.Kind != trace.KindSelect || !e.Completed() || e.A == trace.SelectDefault {
		return nil
	}
	for k := range e.Cases {
		if uint64(e.Cases[k].Index) == e.A {
			return &e.Cases[k]
		}
	}
	return nil
}
