package campaign

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/build"
	"github.com/goweave/goweave/fuzzer/run"
	"github.com/goweave/goweave/runtimepatch"
)

// fakeAnalysis turns the META "finding" key written by testdata/fakerecorder into a
// finding, standing in for the real analysis.
func fakeAnalysis(t *testing.T) {
	old := analyzeTrace
	analyzeTrace = func(tr *trace.Trace, _ analysis.Options) (*analysis.Result, error) {
		res := &analysis.Result{Trace: tr}
		if fp := tr.Meta["finding"]; fp != "" {
			res.Findings = []analysis.Finding{{Kind: "fake", Fingerprint: fp, Message: "found " + fp,
				Positions: []analysis.Position{{Role: "here", File: "/x/" + fp + ".go", Line: 1}}}}
		}
		return res, nil
	}
	t.Cleanup(func() { analyzeTrace = old })
}

// fakeConfig fuzzes testdata/fakerecorder, built with the stock runtime: its TestMain
// writes the traces.
func fakeConfig(t *testing.T) Config {
	old := prepareOverlay
	prepareOverlay = func(context.Context, string) (*runtimepatch.Overlay, error) { return nil, nil }
	t.Cleanup(func() { prepareOverlay = old })
	return Config{Dir: "testdata/fakerecorder", OutDir: t.TempDir(), Parallel: 2, RunTimeout: 10 * time.Second}
}

func TestFuzzDeduplicatesAndKeepsFirstRun(t *testing.T) {
	fakeAnalysis(t)
	cfg := fakeConfig(t)
	cfg.RunsPerTest = 6
	var mu sync.Mutex
	var progress []Progress
	var logs []RunLog
	cfg.Log = func(l RunLog) { logs = append(logs, l) } // from the campaign's goroutine
	rep, err := Fuzz(context.Background(), cfg, func(p Progress) {
		if p.Stage != "" {
			return // what the campaign does before its first run (preparing, building)
		}
		mu.Lock()
		progress = append(progress, p)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Tests) != 3 {
		t.Fatalf("%d tests in the report, want 3: %+v", len(rep.Tests), rep.Tests)
	}
	for _, tr := range rep.Tests {
		if tr.Runs != 6 || tr.Status != "pass" || tr.Statuses["pass"] != 6 || len(tr.Statuses) != 1 {
			t.Errorf("%s: %d runs, status %s %v; want 6 runs, pass", tr.Test, tr.Runs, tr.Status, tr.Statuses)
		}
		// Runs alternate between one and two events: two interleavings.
		if tr.Signatures != 2 {
			t.Errorf("%s: %d signatures, want 2", tr.Test, tr.Signatures)
		}
	}
	if len(rep.Findings) != 2 {
		t.Fatalf("%d findings, want 2 (one per fingerprint): %+v", len(rep.Findings), rep.Findings)
	}
	byFP := map[string]Finding{}
	for _, f := range rep.Findings {
		byFP[f.Fingerprint] = f
	}
	always, third := byFP["always"], byFP["from-third"]
	if always.Test != "TestAlways" || always.Run != 1 || always.Package != "fakerecorder" {
		t.Errorf("always: test %s run %d package %s, want TestAlways run 1 in fakerecorder", always.Test, always.Run, always.Package)
	}
	if third.Test != "TestFromThird" || third.Run != 3 {
		t.Errorf("from-third: test %s run %d, want TestFromThird run 3", third.Test, third.Run)
	}
	if third.ID == "" || third.ID == always.ID || third.Strategy != "record" {
		t.Errorf("IDs %q %q, strategy %q", always.ID, third.ID, third.Strategy)
	}
	// Only the traces that show a finding are kept.
	var kept []string
	filepath.WalkDir(cfg.OutDir, func(path string, d os.DirEntry, err error) error {
		if err == nil && filepath.Ext(path) == ".trace" {
			kept = append(kept, path)
		}
		return nil
	})
	if len(kept) != 2 {
		t.Errorf("kept traces %v, want the two of the findings", kept)
	}
	for _, f := range rep.Findings {
		if _, err := trace.ReadFile(f.Trace); err != nil {
			t.Errorf("%s: trace of the finding: %v", f.Fingerprint, err)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(always.Trace)))), "report.json")); err != nil {
		t.Errorf("no report.json in the campaign directory: %v", err)
	}

	// One log entry per run, saying what it found first and whether its interleaving was new.
	if len(logs) != 18 {
		t.Fatalf("%d run log entries, want 18", len(logs))
	}
	newSigs, firsts := map[string]int{}, map[string]int{}
	for _, l := range logs {
		if l.Strategy != "record" || l.Status != run.StatusPass || l.Err != nil || l.Run < 1 || l.Run > 6 {
			t.Errorf("log entry %+v", l)
		}
		if l.NewSignature {
			newSigs[l.Test.Test]++
		}
		for _, f := range l.New {
			firsts[f.Fingerprint] = l.Run
			if f.Test != l.Test.Test {
				t.Errorf("run %d of %s logs a finding of %s", l.Run, l.Test.Test, f.Test)
			}
		}
	}
	for test, n := range newSigs {
		if n != 2 {
			t.Errorf("%s: %d runs logged with a new signature, want 2", test, n)
		}
	}
	// Two runs at a time: run 4 can finish before run 3 and be the first to show from-third.
	if n := firsts["from-third"]; firsts["always"] != 1 || (n != 3 && n != 4) || len(firsts) != 2 {
		t.Errorf("findings logged as new in runs %v, want always in 1, from-third in 3 or 4", firsts)
	}

	if len(progress) != 3+18+1 {
		t.Fatalf("%d progress calls, want one per test start, one per run and one at the end", len(progress))
	}
	runs, started := 0, map[string]bool{}
	for i, p := range progress[:len(progress)-1] {
		switch {
		case p.Runs == runs && !started[p.Test]:
			started[p.Test] = true // a test's first run started
		case p.Runs == runs+1 && started[p.Test]:
			runs++
		default:
			t.Errorf("progress %d: %+v after %d runs", i, p, runs)
		}
		if p.TestsTotal != 3 || p.Done || p.Package != "fakerecorder" {
			t.Errorf("progress %d: %+v", i, p)
		}
	}
	if last := progress[len(progress)-1]; !last.Done || last.TestsDone != 3 || last.Runs != 18 || last.Findings != 2 {
		t.Errorf("final progress %+v", last)
	}
}

func TestFuzzEnoughStopsTest(t *testing.T) {
	fakeAnalysis(t)
	cfg := fakeConfig(t)
	cfg.Run = "FromThird"
	cfg.RunsPerTest = 50
	cfg.Enough = func(id TestID, found []Finding) bool {
		if id.Test != "TestFromThird" || filepath.Base(id.Dir) != "fakerecorder" {
			t.Errorf("Enough called with %+v", id)
		}
		return len(found) > 0
	}
	rep, err := Fuzz(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Tests) != 1 || rep.Tests[0].Runs < 3 || rep.Tests[0].Runs > 3+cfg.Parallel {
		t.Errorf("tests %+v: want one test stopped right after its third run", rep.Tests)
	}
}

func TestFuzzShard(t *testing.T) {
	cfg := fakeConfig(t)
	seen := map[string]int{}
	for i := range 2 {
		cfg.Shard = Shard{Index: i, Count: 2}
		rep, err := Fuzz(context.Background(), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range rep.Tests {
			seen[tr.Test]++
		}
	}
	if len(seen) != 3 || seen["TestAlways"] != 1 || seen["TestFromThird"] != 1 || seen["TestNothing"] != 1 {
		t.Errorf("tests over two shards: %v, want each of the three once", seen)
	}
	cfg.Shard = Shard{Index: 2, Count: 2}
	if _, err := Fuzz(context.Background(), cfg, nil); err == nil {
		t.Error("shard 2/2 accepted")
	}
}

func TestFuzzTimeBudget(t *testing.T) {
	cfg := fakeConfig(t)
	cfg.Run = "Nothing"
	cfg.TimePerTest = 400 * time.Millisecond
	rep, err := Fuzz(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Only the budget ends this campaign (no run budget), and no run starts after it: the
	// last run ends within its RunTimeout. How many runs fit depends on the machine's load.
	if tr := rep.Tests[0]; tr.Runs < 1 || tr.Seconds > 0.4+10 {
		t.Errorf("%+v", tr)
	}
}

// A run whose analysis would pass the memory budget is not analyzed, and the campaign goes
// on: it makes its runs, reports the runs it could analyze, says which run it could not
// and saves its state.
func TestAnalysisMemoryBudgetKeepsTheCampaignGoing(t *testing.T) {
	cfg := fakeConfig(t)
	cfg.Run, cfg.RunsPerTest, cfg.Strategy = "Always", 3, "record"
	cfg.AnalysisMemory = 1
	rep, err := Fuzz(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tr := rep.Tests[0]; tr.Runs != 3 || len(rep.Findings) != 0 {
		t.Errorf("%+v, %d findings: want 3 runs, none analyzed", tr, len(rep.Findings))
	}
	// The first run past the budget is named; that no run of the test was analyzed is said.
	if len(rep.Warnings) != 2 || !strings.Contains(rep.Warnings[0], "TestAlways run ") ||
		!strings.Contains(rep.Warnings[0], "memory budget") || !strings.Contains(rep.Warnings[0], "2 more runs") ||
		!strings.Contains(rep.Warnings[1], "TestAlways: none of its 3 runs was analyzed (3: past the memory budget") {
		t.Errorf("warnings %q", rep.Warnings)
	}
	if states, _ := filepath.Glob(filepath.Join(cfg.OutDir, "state", "*.json")); len(states) != 1 {
		t.Errorf("saved states %v", states)
	}
}

// The time budget is judged from the start of the test's budget, on the dispatcher's clock.
func TestTimeBudgetStopsNewRuns(t *testing.T) {
	c := &campaign{cfg: Config{TimePerTest: 400 * time.Millisecond}}
	first := time.Now()
	ts := &testState{first: first.Add(time.Second), budgetFrom: first, started: 5, runs: 5, strategy: recordStrategy{}}
	if !c.canStart(ts, first.Add(399*time.Millisecond)) {
		t.Error("a run was refused within the budget")
	}
	if c.canStart(ts, first.Add(400*time.Millisecond)) {
		t.Error("a run may start after the budget was spent")
	}
}

// The tests started before any test ended pay for the build (up to half their budget), so
// that -time is the command's wall time on a package of one test; the tests started later
// do not.
func TestTimeBudgetIncludesTheBuild(t *testing.T) {
	start := time.Now()
	c := &campaign{cfg: Config{TimePerTest: 10 * time.Second, Parallel: 1}, start: start}
	a := &testState{name: "TestA", strategy: recordStrategy{}, worst: run.StatusPass}
	b := &testState{name: "TestB", strategy: recordStrategy{}, worst: run.StatusPass}
	c.tests = []*testState{a, b}
	built := start.Add(3 * time.Second)
	if j, ok := c.nextJob(built); !ok || j.test != a {
		t.Fatalf("first job %v %v, want TestA", j.test, ok)
	}
	if !a.budgetFrom.Equal(start) || !a.first.Equal(built) {
		t.Errorf("TestA's budget from %v, first run %v: want the campaign's start %v and the run's %v", a.budgetFrom, a.first, start, built)
	}
	if c.canStart(a, start.Add(10*time.Second)) {
		t.Error("TestA may start a run 10s after the command started (3s of build, 7s of runs) with -time 10s")
	}
	a.inflight--
	ended := start.Add(10 * time.Second)
	if j, ok := c.nextJob(ended); !ok || j.test != b {
		t.Fatalf("second job %v %v, want TestB", j.test, ok)
	}
	if !b.budgetFrom.Equal(ended) {
		t.Errorf("TestB, started after TestA ended, has its budget from %v, want its first run's %v", b.budgetFrom, ended)
	}

	// A cold build longer than half the budget leaves half of it.
	c = &campaign{cfg: Config{TimePerTest: 10 * time.Second}, start: start}
	if got, want := c.budgetStart(start.Add(time.Minute)), start.Add(time.Minute-5*time.Second); !got.Equal(want) {
		t.Errorf("after a one-minute build the budget starts at %v, want %v (half the budget left)", got, want)
	}
}

func TestFuzzBuildError(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module broken\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "broken_test.go"), []byte("package broken\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) { undefinedThing() }\n"), 0o644)
	cfg := Config{Dir: dir, OutDir: t.TempDir()}
	rep, err := Fuzz(context.Background(), cfg, nil)
	var be *build.Error
	if !errors.As(err, &be) {
		t.Fatalf("error %v, want a *build.Error", err)
	}
	if be.Package != "broken" || be.ExitCode == 0 || !containsAll(be.Output, "undefined: undefinedThing", "broken_test.go:5") {
		t.Errorf("build.Error %+v", be)
	}
	if rep == nil || len(rep.Tests) != 0 {
		t.Errorf("report %+v, want an empty one", rep)
	}
}

// A package whose test binary builds but dies before listing its tests is reported like a
// compile error, and the other packages are still fuzzed.
func TestFuzzUnusableTestBinary(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module m\n\ngo 1.26\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "bad"), 0o755)
	os.MkdirAll(filepath.Join(dir, "good"), 0o755)
	os.WriteFile(filepath.Join(dir, "bad", "bad_test.go"), []byte("package bad\n\nimport \"testing\"\n\nfunc init() { panic(\"init fails\") }\n\nfunc TestX(t *testing.T) {}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "good", "good_test.go"), []byte("package good\n\nimport \"testing\"\n\nfunc TestY(t *testing.T) {}\n"), 0o644)
	rep, err := Fuzz(context.Background(), Config{Dir: dir, OutDir: t.TempDir()}, nil)
	var be *build.Error
	if !errors.As(err, &be) || be.Package != "m/bad" || !strings.Contains(be.Output, "init fails") {
		t.Fatalf("error %v, want a build.Error for m/bad showing its panic", err)
	}
	if rep == nil || len(rep.Tests) != 1 || rep.Tests[0].Test != "TestY" || rep.Tests[0].Runs != 1 {
		t.Errorf("report %+v, want m/good's test run", rep)
	}
}

func TestFuzzRejectsBadConfig(t *testing.T) {
	for name, cfg := range map[string]Config{
		"strategy":  {Dir: "testdata/fakerecorder", Strategy: "bogus"},
		"run":       {Dir: "testdata/fakerecorder", Run: "("},
		"directory": {Dir: "testdata/no-such-dir"},
	} {
		cfg.OutDir = t.TempDir()
		if _, err := Fuzz(context.Background(), cfg, nil); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// Cancelling a campaign stops its processes at once and returns what it found so far.
func TestFuzzCancel(t *testing.T) {
	fakeAnalysis(t)
	cfg := fakeConfig(t)
	cfg.TimePerTest = time.Minute
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var start time.Time
	rep, err := Fuzz(ctx, cfg, func(p Progress) {
		if p.Findings > 0 && start.IsZero() {
			start = time.Now()
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("cancelled campaign took %v", d)
	}
	if rep == nil || len(rep.Tests) != 3 || len(rep.Findings) == 0 {
		t.Fatalf("report so far %+v", rep)
	}
	// The runs killed by the cancellation are not counted as timeouts of the tests.
	for _, tr := range rep.Tests {
		if tr.Status != "pass" {
			t.Errorf("%s: status %s", tr.Test, tr.Status)
		}
	}
}

// With all process slots on one test, its slow third run finishes after the fourth: the
// finding still belongs to the earliest run that found it, with that run's trace.
func TestFuzzKeepsEarliestRunOfParallelRuns(t *testing.T) {
	fakeAnalysis(t)
	cfg := fakeConfig(t)
	cfg.Run, cfg.RunsPerTest = "FromThird", 6
	rep, err := Fuzz(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].Run != 3 || filepath.Base(rep.Findings[0].Trace) != "run-000003.trace" {
		t.Fatalf("findings %+v, want the one of run 3", rep.Findings)
	}
	if _, err := trace.ReadFile(rep.Findings[0].Trace); err != nil {
		t.Error(err)
	}
}

// Tests are fuzzed side by side, one per process slot; slots beyond the number of tests go
// to the tests under way, fewest runs in flight first.
func TestNextJobSpreadsSlotsOverTests(t *testing.T) {
	c := &campaign{cfg: Config{Parallel: 2, RunsPerTest: 10}}
	for _, name := range []string{"A", "B", "C"} {
		c.tests = append(c.tests, &testState{bin: &build.TestBinary{Package: "p"}, name: name})
	}
	now := time.Now()
	pick := func() string {
		j, ok := c.nextJob(now)
		if !ok {
			return "-"
		}
		return j.test.name
	}
	// Two slots: A and B start; a third process goes to one of them, not to C.
	if got := pick() + pick() + pick(); got != "ABA" {
		t.Errorf("picks %q, want ABA", got)
	}
	if got := pick(); got != "B" {
		t.Errorf("pick %q, want B (fewest in flight)", got)
	}
	// A's budget is spent and its runs finish: C takes its place.
	c.tests[0].started, c.tests[0].inflight = 10, 0
	if got := pick(); got != "C" {
		t.Errorf("pick %q, want C", got)
	}
	if !c.tests[0].done {
		t.Error("A not marked done")
	}
}
