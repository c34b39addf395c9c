package campaign

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goweave/goweave/fuzzer/run"
)

// budgetConfig fuzzes the tests of testdata/slowshare matching run, each with the share
// perTest of the campaign's time.
func budgetConfig(t *testing.T, run string, perTest time.Duration) Config {
	fakeAnalysis(t)
	cfg := fakeConfig(t)
	cfg.Dir, cfg.Run, cfg.Strategy, cfg.TimePerTest = "testdata/slowshare", run, "record", perTest
	return cfg
}

func testResult(rep *Report, name string) TestResult {
	for _, tr := range rep.Tests {
		if tr.Test == name {
			return tr
		}
	}
	return TestResult{}
}

func hasFinding(rep *Report, fingerprint string) bool {
	return slices.ContainsFunc(rep.Findings, func(f Finding) bool { return f.Fingerprint == fingerprint })
}

// A test five times longer than its share (-time 300ms, 1.5 s a run) gets a finished run
// and its bug is found: its first run borrows the time past its share, and the report says
// how much (the test's Borrowed, Budget, a warning).
func TestSlowTestBorrowsARun(t *testing.T) {
	cfg := budgetConfig(t, "^(TestSlowA|TestFast)$", 300*time.Millisecond)
	rep, err := Fuzz(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	slow, fast := testResult(rep, "TestSlowA"), testResult(rep, "TestFast")
	if slow.Runs < 1 || slow.Analyzed < 1 || slow.Borrowed <= 0 || !hasFinding(rep, "slow-a") {
		t.Fatalf("TestSlowA %+v, findings %+v: want a finished run, analyzed, time borrowed, its bug found", slow, rep.Findings)
	}
	if fast.Runs < 1 || fast.Borrowed != 0 {
		t.Errorf("TestFast %+v: want runs within its share", fast)
	}
	if b := rep.Budget; b == nil || b.Borrowers != 1 || b.Borrowed != slow.Borrowed || b.PerTest != 0.3 || b.Lendable != 10 {
		t.Errorf("budget %+v: want TestSlowA's loan of the 10 s lendable (one -timeout, more than 2 × 300ms)", b)
	}
	if len(rep.Unfinished) != 0 {
		t.Errorf("unfinished %+v, want none", rep.Unfinished)
	}
	if !slices.ContainsFunc(rep.Warnings, func(w string) bool {
		return strings.Contains(w, "1 test needed more than their share (-time 300ms)") && strings.Contains(w, "slowshare.TestSlowA")
	}) {
		t.Errorf("warnings %q: none says TestSlowA borrowed", rep.Warnings)
	}
}

// The campaign lends at most tests × -time (here one -timeout, 5 s): five tests of 1.5 s
// with -time 100ms, one at a time, need more. The first gets its run and bug; those left
// when the loans are spent are stopped as before, named in a warning and in Unfinished,
// never "0 bugs".
func TestLoansRunOut(t *testing.T) {
	cfg := budgetConfig(t, "^TestSlow[A-E]$", 100*time.Millisecond)
	cfg.Parallel, cfg.RunTimeout = 1, 5*time.Second
	rep, err := Fuzz(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a := testResult(rep, "TestSlowA"); a.Runs < 1 || !hasFinding(rep, "slow-a") {
		t.Fatalf("TestSlowA %+v, findings %+v: want a finished run and its bug", a, rep.Findings)
	}
	if rep.Budget == nil || rep.Budget.Lendable != 5 {
		t.Fatalf("budget %+v: want 5 s lendable", rep.Budget)
	}
	// An accounting bound, not a speed: a stopped run's loan ends when its process is reaped.
	if rep.Budget.Borrowed > rep.Budget.Lendable+5 {
		t.Errorf("budget %+v: lent more than it could", rep.Budget)
	}
	unfinished := map[string]string{}
	for _, u := range rep.Unfinished {
		unfinished[u.Test] = u.Why
	}
	if len(unfinished) == 0 {
		t.Fatalf("no test unfinished, report %+v: 5 s cannot pay for five runs of 1.5 s", rep.Tests)
	}
	for _, tr := range rep.Tests {
		why, cut := unfinished[tr.Test]
		switch {
		case cut && (tr.Runs != 0 || !strings.Contains(why, "no more time to lend")):
			t.Errorf("%s: %+v, unfinished because %q", tr.Test, tr, why)
		case !cut && tr.Runs == 0:
			t.Errorf("%s: %+v: no run and not in Unfinished", tr.Test, tr)
		case cut && !slices.ContainsFunc(rep.Warnings, func(w string) bool {
			return strings.Contains(w, "slowshare."+tr.Test+": no run finished: its first run went on past its time budget (-time 100ms) until the campaign's time for slow tests (5s")
		}):
			t.Errorf("warnings %q: none names %s", rep.Warnings, tr.Test)
		}
	}
}

// A test longer than its time limit (-timeout) has no run that ends on its own: it is named
// in Unfinished and in a warning, whatever its runs found. (Which stops it first, the time
// limit or the end of the loans (-timeout too here), depends on the load: a loaded machine
// can make a sleeping process look busy at its time limit.)
func TestRunPastTimeLimitIsNamed(t *testing.T) {
	cfg := budgetConfig(t, "^TestForever$", 300*time.Millisecond)
	cfg.RunTimeout, cfg.RunsPerTest = time.Second, 1
	rep, err := Fuzz(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tr := rep.Tests[0]; tr.Runs+tr.CutShort != 1 || tr.Runs != tr.Statuses["timeout"] {
		t.Fatalf("%+v: want one run, stopped", tr)
	}
	t.Logf("unfinished %+v; warnings %q", rep.Unfinished, rep.Warnings)
	if len(rep.Unfinished) != 1 || rep.Unfinished[0].Test != "TestForever" || !strings.Contains(rep.Unfinished[0].Why, "stopped") {
		t.Errorf("unfinished %+v: want TestForever, stopped", rep.Unfinished)
	}
	if !slices.ContainsFunc(rep.Warnings, func(w string) bool {
		return strings.Contains(w, "slowshare.TestForever") && (strings.Contains(w, "time limit") || strings.Contains(w, "no run finished"))
	}) {
		t.Errorf("warnings %q: none names TestForever and why it has no finished run", rep.Warnings)
	}
}

// What a test leaves of its share as it ends goes back to the loans, and its own loan first.
func TestGiveBack(t *testing.T) {
	now := time.Now()
	c := &campaign{cfg: Config{TimePerTest: time.Second}, loans: &loans{limit: 2 * time.Second, left: 0}}
	ts := &testState{first: now, budgetFrom: now, borrowed: 500 * time.Millisecond}
	c.giveBack(ts, now.Add(time.Second)) // 0.5 s of its 1.5 s share left
	if ts.borrowed != 0 || c.loans.left != 500*time.Millisecond {
		t.Errorf("borrowed %v, left %v: want 0 and 500ms", ts.borrowed, c.loans.left)
	}
	never := &testState{}
	c.giveBack(never, now)
	if c.loans.left != 1500*time.Millisecond {
		t.Errorf("left %v after a test that never ran ended: want its whole share back", c.loans.left)
	}
	if c.loans.takeAll(2*time.Second) || !c.loans.takeAll(time.Second) || c.loans.take(time.Second) != 500*time.Millisecond || c.loans.take(time.Second) != 0 {
		t.Errorf("take and takeAll lend more than is left")
	}
}

// A first run whose share has ended stops when nothing is left to lend.
func TestFirstRunStopsWhenNothingIsLeft(t *testing.T) {
	l := &loans{limit: time.Second}
	stopped := make(chan struct{})
	f := l.lendFirst(time.Now(), time.Second, func() { close(stopped) })
	<-stopped
	if !f.ended() {
		t.Error("the loan does not say it stopped the run")
	}
}

// A first run that borrowed is paid for (its time past the share, the rest back), and its
// test gets another run's time when its share has none; not after a run stopped at its cap
// still making progress: another would take as long and end the same.
func TestSettleFirst(t *testing.T) {
	for _, progressing := range []bool{false, true} {
		now := time.Now()
		l := &loans{limit: 20 * time.Second, left: 20 * time.Second}
		c := &campaign{cfg: Config{TimePerTest: time.Second}, loans: l}
		ts := &testState{first: now, budgetFrom: now, last: now.Add(4 * time.Second)}
		loan := &firstRun{loans: l, granted: l.take(10 * time.Second)}
		res := jobResult{job: job{test: ts, index: 1, shareEnd: now.Add(time.Second), loan: loan}, exited: now.Add(3 * time.Second),
			run: &AnalyzedRun{Run: &run.Run{Elapsed: 3 * time.Second, Progressing: progressing}}, inspected: time.Second}
		c.settleFirst(ts, res)
		want := 2 * time.Second // its run past its share; not its analysis
		if !progressing {
			want += 1*time.Second + 4*time.Second // and one more run and its analysis, after its own
		}
		if ts.borrowed != want || l.left != l.limit-want {
			t.Errorf("progressing %v: borrowed %v, %v left; want %v borrowed, %v left", progressing, ts.borrowed, l.left, want, l.limit-want)
		}
	}
}

// A second run is lent only beyond a share for each test not yet started.
func TestSecondRunAfterFirstRuns(t *testing.T) {
	now := time.Now()
	l := &loans{limit: 20 * time.Second, left: 20 * time.Second}
	c := &campaign{cfg: Config{TimePerTest: time.Second}, loans: l}
	ts := &testState{first: now, budgetFrom: now, last: now.Add(time.Second)}
	for range 17 {
		c.tests = append(c.tests, &testState{}) // not started: 17 s kept for them
	}
	res := jobResult{job: job{test: ts, index: 1, shareEnd: now.Add(time.Second), loan: &firstRun{loans: l}},
		run: &AnalyzedRun{Run: &run.Run{Elapsed: 5 * time.Second}}}
	c.settleFirst(ts, res)
	if ts.borrowed != 0 || l.left != 20*time.Second {
		t.Errorf("borrowed %v, %v left: want no second run (5 s) from 20 s that keeps 17 s for first runs", ts.borrowed, l.left)
	}
	c.tests = c.tests[:3]
	ts.borrowed = 0
	c.settleFirst(ts, res)
	if ts.borrowed != 5*time.Second || l.left != 15*time.Second {
		t.Errorf("borrowed %v, %v left: want a second run (5 s) with 3 tests to start", ts.borrowed, l.left)
	}
}
