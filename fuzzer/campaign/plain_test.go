package campaign

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer/build"
	"github.com/goweave/goweave/fuzzer/run"
)

// A test failing in every run, one unsteered, is checked once under plain go test, as soon
// as it looks broken; the error says what that check saw.
func TestPlainCheckWording(t *testing.T) {
	for _, c := range []struct {
		outcome, why string
		failed       int
		race         bool
		want         string
	}{
		{plainFail, "", 32, true, "p.TestX fails under plain go test too, with no schedule of goweave's: the failure comes whatever the schedule; make it pass to fuzz it (go test -run '^(TestX)$' . failed in each of 32 runs; under goweave all 8 runs failed, one unsteered; not fuzzed further): x_test.go:9: TestX failed: boom"},
		{plainPass, "", 0, true, "p.TestX fails in every run under goweave (race detector and recording on; all 32 runs failed, one unsteered; not fuzzed further); plain go test passes (go test -run '^(TestX)$' .): the failure may depend on timing the recording changes: x_test.go:9: TestX failed: boom"},
		{plainPass, "", 0, false, "p.TestX fails in every run under goweave (recording on; all 32 runs failed, one unsteered; not fuzzed further); plain go test passes"},
		{plainFlaky, "", 3, false, "p.TestX fails in every run under goweave (recording on; all 32 runs failed, one unsteered; not fuzzed further); under plain go test it failed in each of 3 runs, then passed (go test -run '^(TestX)$' .): the failure depends on the schedule"},
		{"", "it did not build: x", 0, true, "p.TestX fails in every run under goweave (race detector and recording on; all 8 runs failed, one unsteered; not fuzzed further; plain go test could not tell: it did not build: x): x_test.go:9"},
	} {
		checked := 0
		release := make(chan struct{})
		plainGoTest = func(ctx context.Context, dir, test string, race bool, vet string, timeout time.Duration) plainResult {
			<-release
			checked++
			if dir != "/m" || test != "TestX" || race != c.race || vet != "off" {
				t.Errorf("checked %s %s race=%v vet=%q", dir, test, race, vet)
			}
			r := plainResult{outcome: c.outcome, why: c.why, command: "go test -run '^(TestX)$' .", failed: c.failed}
			if c.outcome == plainPass || c.outcome == plainFlaky {
				r.passed = 1
			}
			return r
		}
		ts := &testState{bin: &build.TestBinary{Package: "p", Dir: "/m"}, name: "TestX", statuses: map[string]int{}, strategy: recordStrategy{}}
		cp := &campaign{cfg: Config{Race: c.race, Vet: "off", RunTimeout: time.Second, Parallel: 1}, tests: []*testState{ts},
			plain: &plainChecks{ctx: context.Background(), sem: make(chan struct{}, 1), ended: make(chan struct{}, 1)}}
		// Runs go on while the check has not ended or it passed, until the test is broken.
		for ts.runs < goweaveOnlyAfter+1 && (ts.runs < brokenAfter || cp.canStart(ts, ts.first)) {
			ts.runs++
			ar := &AnalyzedRun{Run: &run.Run{Status: run.StatusFail}, Findings: []Finding{{Finding: analysis.Finding{
				Kind: "flaky-failure", Message: "TestX failed: boom", Positions: []analysis.Position{{File: "/m/x_test.go", Line: 9}}}}}}
			if ts.runs > 1 {
				ar.Request = &RunRequest{Strategy: "flow"}
			}
			ts.noteFailure(ar)
			cp.checkPlain(ts, false)
			if ts.runs == brokenAfter {
				if cp.canStart(ts, ts.first) || !ts.plainPending() {
					t.Errorf("%q: a test that looks broken may start runs before its check ended", c.outcome)
				}
				close(release)
				<-cp.plainEnded()
			}
		}
		cp.waitPlain()
		errs := cp.failingErrors()
		if checked != 1 || len(errs) != 1 || !strings.HasPrefix(errs[0], c.want) {
			t.Errorf("%d checks, errors %q; want one check and an error starting %q", checked, errs, c.want)
		}
		if f := ts.failing(); f == nil || f.Plain != c.outcome || f.PlainCommand == "" || f.PlainFailed != c.failed {
			t.Errorf("failing %+v", f)
		}
	}
	plainGoTest = runPlainGoTest
}

// A test failing 85% of its runs for the schedule's reasons (7 of 8 ready cases of a
// select fail it) looks broken after 8 failing runs in a quarter of campaigns: its plain
// check sees a pass, the campaign resumes it, and its next passing run makes its failure
// the flaky-failure it is, with no error.
func TestLooksBrokenButFlakyResumes(t *testing.T) {
	plainGoTest = func(ctx context.Context, dir, test string, race bool, vet string, timeout time.Duration) plainResult {
		return plainResult{outcome: plainFlaky, command: "go test", failed: 5, passed: 1}
	}
	defer func() { plainGoTest = runPlainGoTest }()
	ts := &testState{bin: &build.TestBinary{Package: "p", Dir: "/m"}, name: "TestX", statuses: map[string]int{}, strategy: recordStrategy{}}
	c := &campaign{cfg: Config{RunTimeout: time.Second, Parallel: 1}, tests: []*testState{ts},
		plain: &plainChecks{ctx: context.Background(), sem: make(chan struct{}, 1), ended: make(chan struct{}, 1)}}
	for ts.runs < brokenAfter {
		ts.runs++
		ts.statuses["fail"]++
		ar := &AnalyzedRun{Run: &run.Run{Status: run.StatusFail}}
		if ts.runs > 1 {
			ar.Request = &RunRequest{Strategy: "flow"}
		}
		ts.noteFailure(ar)
		c.checkPlain(ts, false)
	}
	<-c.plainEnded()
	// Its share was spent waiting for the check: the wait is given back.
	c.cfg.TimePerTest = time.Minute
	ts.first, ts.budgetFrom = ts.plain.started.Add(-30*time.Second), ts.plain.started.Add(-30*time.Second)
	ts.plain.finished = ts.plain.started.Add(time.Hour)
	now := ts.plain.finished.Add(time.Second)
	if c.canStart(ts, now) {
		t.Fatal("canStart before the wait was given back: the test is not set up as spent")
	}
	c.creditPlainWaits()
	if !c.canStart(ts, now) {
		t.Fatal("a test whose plain runs passed once is not resumed, or not given back the time it waited")
	}
	ts.runs++
	ts.statuses["pass"]++
	ts.noteFailure(&AnalyzedRun{Run: &run.Run{Status: run.StatusPass}})
	f := Finding{Finding: analysis.Finding{Kind: "flaky-failure", Package: "p", Test: "TestX"}}
	if errs := c.failingErrors(); len(errs) != 0 || !c.worthReporting(f) || ts.broken() {
		t.Errorf("errors %q, flaky-failure reported %v; want no error and the flaky-failure", errs, c.worthReporting(f))
	}
}

// runPlainGoTest runs go test and tells a failure, a pass and a build failure apart.
func TestRunPlainGoTest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module plain\n\ngo 1.25\n",
		"p_test.go": `package plain

import (
	"os"
	"testing"
)

func TestPass(t *testing.T) {}

func TestFail(t *testing.T) { t.Fatal("no") }

func TestPanic(t *testing.T) { panic("boom") }

// TestPort fails as a second process does on a fixed port the campaign's runs hold.
func TestPort(t *testing.T) { t.Fatal("listen tcp 127.0.0.1:16379: bind: address already in use") }

// TestFlaky fails its first two runs (a counter in a file), then passes.
func TestFlaky(t *testing.T) {
	path := os.Getenv("PLAIN_COUNTER")
	b, _ := os.ReadFile(path)
	os.WriteFile(path, append(b, 'x'), 0o644)
	if len(b) < 2 {
		t.Fatal("not yet")
	}
}

// TestGoweaveOnly fails under goweave's runtime only: the plain check must not pass goweave's variables on.
func TestGoweaveOnly(t *testing.T) {
	if os.Getenv("GOWEAVE_RUN") != "" {
		t.Fatal("GOWEAVE_RUN set")
	}
}
`,
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("GOWEAVE_RUN", "1")
	t.Setenv("PLAIN_COUNTER", filepath.Join(t.TempDir(), "counter"))
	for test, want := range map[string]plainResult{"TestPass": {outcome: plainPass, passed: 1}, "TestFail": {outcome: plainFail, failed: plainRuns},
		"TestPanic": {outcome: plainFail, failed: plainRuns}, "TestGoweaveOnly": {outcome: plainPass, passed: 1}, "TestNone": {}, "TestPort": {},
		"TestFlaky": {outcome: plainFlaky, failed: 2, passed: 1}} {
		r := runPlainGoTest(context.Background(), dir, test, false, "", 10*time.Second)
		if r.outcome != want.outcome || r.failed != want.failed || r.passed != want.passed || (want.outcome == "") != (r.why != "") || !strings.Contains(r.command, "-run ^("+test+")$") {
			t.Errorf("%s: %+v, want %+v", test, r, want)
		}
	}
	if r := runPlainGoTest(context.Background(), dir, "TestPort", false, "", 10*time.Second); !strings.Contains(r.why, "the campaign's runs of the package may hold") || !strings.Contains(r.why, "bind: address already in use") {
		t.Errorf("TestPort: %s", r.why)
	}
	if err := os.WriteFile(filepath.Join(dir, "broken_test.go"), []byte("package plain\n\nfunc x() { undefined() }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runPlainGoTest(context.Background(), dir, "TestPass", false, "", 10*time.Second); r.outcome != "" || !strings.HasPrefix(r.why, "it did not build") {
		t.Errorf("broken package: %+v", r)
	}
}

// A test resumed after a plain pass whose budget ended before goweaveOnlyAfter failing
// runs was fuzzed on: its error must not say it was not.
func TestResumedTestsErrorSaysFuzzedOn(t *testing.T) {
	c := &campaign{}
	for _, outcome := range []string{plainPass, plainFlaky} {
		got := c.unsteeredFailure("p.TestX", &TestFailure{Runs: 12, Plain: outcome, PlainFailed: 2, PlainCommand: "go test"})
		if !strings.Contains(got, "all 12 runs failed, one unsteered; fuzzed on after plain go test passed, until its budget ended)") {
			t.Errorf("%s: %s", outcome, got)
		}
	}
}

// A test that fails in every plain run still runs its queued schedules (stage 2b, up to
// probeRuns): one that passes under one of them is a flaky failure whose message says every
// plain run failed; one whose schedules all fail too is broken, and its error counts them.
func TestPlainFailProbesSchedules(t *testing.T) {
	plainGoTest = func(ctx context.Context, dir, test string, race bool, vet string, timeout time.Duration) plainResult {
		return plainResult{outcome: plainFail, command: "go test -run X", failed: plainRuns}
	}
	defer func() { plainGoTest = runPlainGoTest }()
	for _, passAt := range []int{brokenAfter + 3, 0} {
		ts := &testState{bin: &build.TestBinary{Package: "p", Dir: "/m"}, name: "TestX", statuses: map[string]int{}, strategy: recordStrategy{}}
		c := &campaign{cfg: Config{RunTimeout: time.Second, Parallel: 1}, tests: []*testState{ts},
			plain: &plainChecks{ctx: context.Background(), sem: make(chan struct{}, 1), ended: make(chan struct{}, 1)}}
		finish := func(status run.Status, req *RunRequest) {
			ts.runs++
			ts.statuses[string(status)]++
			ar := &AnalyzedRun{Run: &run.Run{Status: status}, Request: req}
			if status == run.StatusFail {
				ar.Findings = []Finding{{Finding: analysis.Finding{Kind: "flaky-failure", Package: "p", Test: "TestX", Message: "TestX failed: boom",
					Positions: []analysis.Position{{File: "/m/x_test.go", Line: 9}}}}}
			}
			ts.noteFailure(ar)
			c.checkPlain(ts, false)
		}
		for ts.runs < brokenAfter {
			j, ok := c.nextJob(ts.first)
			if !ok {
				t.Fatalf("no job after %d runs", ts.runs)
			}
			ts.inflight--
			finish(run.StatusFail, j.request)
			if ts.runs == 1 { // the first run's schedules
				for range 40 {
					ts.queue = append(ts.queue, &RunRequest{Strategy: "flow"})
				}
			}
		}
		<-c.plainEnded()
		for ts.runs < brokenAfter+probeRuns+1 {
			j, ok := c.nextJob(ts.first) // as the campaign's loop: its probe begins there
			if !ok {
				break
			}
			ts.inflight--
			if j.request == nil {
				t.Fatalf("probe run %d unsteered", ts.runs+1)
			}
			if ts.runs+1 == passAt {
				finish(run.StatusPass, j.request)
				break
			}
			finish(run.StatusFail, j.request)
		}
		if passAt == 0 {
			errs := c.failingErrors()
			if !ts.broken() || ts.runs != brokenAfter+probeRuns || len(errs) != 1 ||
				!strings.Contains(errs[0], "fails under plain go test too") || !strings.Contains(errs[0], "all 24 runs failed, one unsteered, 16 runs of its queued schedules after that; not fuzzed further") {
				t.Errorf("all failing: broken %v after %d runs, errors %q; want broken after %d runs, the probe counted", ts.broken(), ts.runs, errs, brokenAfter+probeRuns)
			}
			continue
		}
		if ts.broken() || len(c.failingErrors()) != 0 || !c.canStart(ts, ts.first) {
			t.Fatalf("passed in run %d: broken %v, errors %q; want a flaky test fuzzed on", passAt, ts.broken(), c.failingErrors())
		}
		f := Finding{Finding: analysis.Finding{Kind: "flaky-failure", Package: "p", Test: "TestX", Message: "TestX failed: boom"}}
		c.markPlainFailed(&f, f)
		if want := "; it fails in every plain run (go test -run X: 32 of 32 failed); passes under 1 of 11 goweave schedules, so its failure depends on the schedule"; !strings.HasSuffix(f.Message, want) {
			t.Errorf("message %q, want it to end %q", f.Message, want)
		}
	}
}
