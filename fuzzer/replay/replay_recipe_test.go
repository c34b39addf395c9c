package replay

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/build"
	"github.com/goweave/goweave/fuzzer/campaign"
	"github.com/goweave/goweave/fuzzer/mutate"
	"github.com/goweave/goweave/fuzzer/run"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// buildForReplay builds the test binary of the package in dir with the goweave runtime.
func buildForReplay(t *testing.T, dir string) *build.TestBinary {
	t.Helper()
	overlay, err := build.Overlay(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	bins, err := build.Build(context.Background(), build.Options{Dir: dir, Packages: []string{"."}, Overlay: overlay, BinDir: t.TempDir()})
	if err != nil || len(bins) != 1 {
		t.Fatalf("build %s: %d binaries, %v", dir, len(bins), err)
	}
	return bins[0]
}

// runUnder runs test once under sched (nil: free) and analyzes its trace.
func runUnder(t *testing.T, bin *build.TestBinary, test string, sched *schedule.Schedule, env ...string) *campaign.AnalyzedRun {
	t.Helper()
	dir := t.TempDir()
	opts := run.Options{Trace: filepath.Join(dir, "run.trace"), Timeout: 20 * time.Second, Env: env}
	var req *campaign.RunRequest
	if sched != nil {
		b, err := schedule.Marshal(sched)
		if err != nil {
			t.Fatal(err)
		}
		opts.Schedule = filepath.Join(dir, "run.schedule")
		if err := os.WriteFile(opts.Schedule, b, 0o644); err != nil {
			t.Fatal(err)
		}
		req = &campaign.RunRequest{Strategy: "test", Recipe: b}
	}
	r, err := run.Test(context.Background(), bin, test, opts)
	if err != nil {
		t.Fatal(err)
	}
	ar := campaign.Inspect(bin, test, 1, req, r, true, 0)
	if ar.Recorded == nil {
		t.Fatalf("%s: no trace: %v\n%s", test, ar.TraceErr, r.Output)
	}
	return ar
}

func replayOf(ar *campaign.AnalyzedRun) *schedule.Schedule {
	return mutate.Replay(&mutate.Run{Trace: ar.Recorded, SelectPartners: map[int][]int{}}, 0)
}

func TestFuzzConfirmsAndReplayRecipe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test program")
	}
	out := t.TempDir()
	rep, err := campaign.Fuzz(context.Background(), campaign.Config{Dir: "testdata/replay", Run: "^TestCloseRace$", RunsPerTest: 1, Strategy: "record", OutDir: out, Parallel: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var f *campaign.Finding
	for i := range rep.Findings {
		if rep.Findings[i].Kind == "send-on-closed" {
			f = &rep.Findings[i]
		}
	}
	if f == nil {
		t.Fatalf("no send-on-closed among %+v", rep.Findings)
	}
	if f.Confidence != analysis.Confirmed || !strings.HasPrefix(f.Confirmation, "confirmed") {
		t.Fatalf("finding %s %s: %q, want it confirmed by its rewrite", f.Kind, f.Confidence, f.Confirmation)
	}
	if got, err := campaign.FindRecipe(out, "", f.ID); err != nil || got != f.Recipe {
		t.Fatalf("FindRecipe(%s) = %q, %v; want %q", f.ID, got, err, f.Recipe)
	}
	rec, err := campaign.LoadRecipe(f.Recipe)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Binary == "" || rec.Schedule == "" || len(rec.Lines) < 2 || rec.Test != "TestCloseRace" {
		t.Fatalf("recipe %+v", rec)
	}

	res, err := ReplayRecipe(context.Background(), rec, Options{OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Reproduced || res.Runs != 1 || res.Finding == nil || res.Finding.Confidence != analysis.Confirmed {
		t.Fatalf("replay: %+v", res)
	}
	if !strings.Contains(res.Run.Panic, "send on closed channel") {
		t.Errorf("panic %q", res.Run.Panic)
	}
	for _, want := range []string{"GOWEAVE_SCHEDULE=", "-test.run '^TestCloseRace$'", rec.Dir} {
		if !strings.Contains(res.Command, want) {
			t.Errorf("command %q lacks %q", res.Command, want)
		}
	}

	// The language server's Replay of the finding as predicted runs its rewrite.
	predicted := *f
	predicted.Confidence, predicted.Replay = analysis.Predicted, ""
	lres, err := Replay(context.Background(), campaign.Config{Dir: "testdata/replay", RunsPerTest: 3, Parallel: 1, OutDir: t.TempDir()}, predicted)
	if err != nil {
		t.Fatal(err)
	}
	if !lres.Reproduced || lres.Runs != 1 || lres.Finding.Confidence != analysis.Confirmed || lres.Run.Schedule == "" {
		t.Errorf("Replay of the predicted finding: %+v", lres)
	}

	// A changed line, or a different binary, is refused.
	changed := *rec
	changed.Lines = append([]campaign.LineHash(nil), rec.Lines...)
	changed.Lines[0].Hash = "0000000000000000"
	var sc *campaign.SourceChangedError
	if _, err := ReplayRecipe(context.Background(), &changed, Options{}); !errors.As(err, &sc) || len(sc.Lines) != 1 {
		t.Errorf("replay of a changed line: %v", err)
	}
	changed = *rec
	changed.Binary = "00"
	if _, err := ReplayRecipe(context.Background(), &changed, Options{}); !errors.As(err, &sc) || !sc.Binary {
		t.Errorf("replay with another binary: %v", err)
	}
}

func TestReplayDivergesWhenControlFlowChanges(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test program")
	}
	bin := buildForReplay(t, "testdata/replay")
	recorded := runUnder(t, bin, "TestFlow", nil)
	sched := replayOf(recorded)
	if sched.Order == nil || len(sched.Order.Ops) < 4 {
		t.Fatalf("replay schedule %+v", sched)
	}
	ar := runUnder(t, bin, "TestFlow", sched, "REPLAY_FLOW=other")
	o := schedule.ReadOutcome(ar.Recorded.Meta)
	if !o.Steered || o.Diverged == 0 {
		t.Fatalf("outcome %+v: the worker's Lock never comes, want a divergence", o)
	}
	if v := campaign.Judge(campaign.Finding{Finding: analysis.Finding{Kind: "cyclic-deadlock", Positions: []analysis.Position{{File: "x.go", Line: 1}}}}, ar); v.Outcome != campaign.OutcomeDiverged {
		t.Errorf("verdict %v, want %s", v, campaign.OutcomeDiverged)
	}
	if ar.Status != run.StatusPass { // a replay that waited for the Lock for good is stopped by runUnder's time limit
		t.Errorf("status %s after %v, want a pass: the replay goes on free after the divergence", ar.Status, ar.Elapsed)
	}
	// The same schedule on the unchanged program is followed.
	if o := schedule.ReadOutcome(runUnder(t, bin, "TestFlow", sched).Recorded.Meta); o.Diverged != 0 || o.Admitted != len(sched.Order.Ops) {
		t.Errorf("replay of the unchanged program: %+v, want all %d ops admitted", o, len(sched.Order.Ops))
	}
}

func TestScheduleNamingAGoroutineThatNeverStarts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test program")
	}
	bin := buildForReplay(t, "testdata/replay")
	file, _ := filepath.Abs("testdata/replay/replay_test.go")
	sched := &schedule.Schedule{Order: &schedule.Order{Window: 100 * time.Millisecond, Ops: []schedule.OpID{
		{G: "1.9", Kind: trace.KindLock, Pos: schedule.Pos{File: file, Line: 38}, N: 1},
	}}}
	ar := runUnder(t, bin, "TestFlow", sched)
	if o := schedule.ReadOutcome(ar.Recorded.Meta); o.Diverged != 1 || o.Admitted != 0 {
		t.Errorf("outcome %+v, want the first op reported as never arriving", o)
	}
	if ar.Status != run.StatusPass {
		t.Errorf("status %s: the run should go on free after the window", ar.Status)
	}
}

func TestReplayOfADeadlockByDesign(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test program")
	}
	bin := buildForReplay(t, "testdata/replay")
	recorded := runUnder(t, bin, "TestStuck", nil)
	if recorded.Status != run.StatusDeadlock {
		t.Fatalf("recorded status %s", recorded.Status)
	}
	ar := runUnder(t, bin, "TestStuck", replayOf(recorded))
	if ar.Status != run.StatusDeadlock { // not a timeout: the runtime, not runUnder's time limit, ended it
		t.Errorf("replay: status %s after %v, want the runtime's deadlock report at once", ar.Status, ar.Elapsed)
	}
}
