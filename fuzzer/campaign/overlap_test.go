package campaign

import (
	"strings"
	"testing"
	"time"

	"github.com/goweave/goweave/fuzzer/build"
	"github.com/goweave/goweave/fuzzer/run"
)

const fileFailure = "=== RUN   TestB\n    x_test.go:31: stat state.db: no such file or directory\n--- FAIL: TestB (0.03s)\nFAIL\n"

// A failure of a run that overlapped another process of its package is not evidence until
// a run of the package fails alone: the run is discarded, its schedule runs again first and
// alone, and the package's runs go one at a time until a lone run fails; then they overlap
// again and count. A campaign that ends serial says so.
func TestOverlappedFailureWaitsForLoneFailure(t *testing.T) {
	c := &campaign{cfg: Config{Parallel: 2, RunsPerTest: 20}, lone: true}
	for _, tc := range []struct{ pkg, name string }{{"p", "A"}, {"p", "B"}, {"q", "C"}} {
		c.tests = append(c.tests, &testState{bin: &build.TestBinary{Package: tc.pkg}, name: tc.name, strategy: recordStrategy{}, statuses: map[string]int{}})
	}
	a, b, cq := c.tests[0], c.tests[1], c.tests[2]
	now := time.Now()
	next := func() job {
		t.Helper()
		j, ok := c.nextJob(now)
		if !ok {
			t.Fatal("no job")
		}
		return j
	}
	end := func(j job, status run.Status, output string) bool {
		t.Helper()
		j.test.inflight--
		return c.endPkgRun(jobResult{job: j, run: &AnalyzedRun{Run: &run.Run{Status: status, Output: output}, Index: j.index, Request: j.request}})
	}
	ja, jb := next(), next()
	if ja.test != a || jb.test != b || !jb.overlapped {
		t.Fatalf("picked %s, %s (overlapped %v); want A, B overlapping", ja.test.name, jb.test.name, jb.overlapped)
	}
	req := &RunRequest{Strategy: "flow", Recipe: []byte("x")}
	jb.request = req
	c.finish(jobResult{job: jb, run: &AnalyzedRun{Run: &run.Run{Status: run.StatusFail, Output: fileFailure}, Index: jb.index, Request: req}})
	if b.runs != 0 || b.failRuns != 0 || b.discarded != 1 || len(b.queue) != 0 || b.done {
		t.Fatalf("B: %d runs, %d failing, %d discarded, queue %d, done %v; want the run discarded, its request held for a lone rerun",
			b.runs, b.failRuns, b.discarded, len(b.queue), b.done)
	}
	// A's run is under way: no run of p starts beside it; q's do.
	if j := next(); j.test != cq {
		t.Fatalf("picked %s while A runs, want C", j.test.name)
	}
	cq.done = true
	if end(ja, run.StatusPass, "") {
		t.Error("a passing run discarded")
	}
	// The discarded run's schedule goes first, alone.
	jr := next()
	if jr.test != b || jr.request != req || jr.rerunOf != jb.index || jr.overlapped {
		t.Fatalf("next run: %s request %v rerunOf %d overlapped %v; want B's lone rerun of run %d", jr.test.name, jr.request, jr.rerunOf, jr.overlapped, jb.index)
	}
	if j, ok := c.nextJob(now); ok {
		t.Fatalf("%s started beside B's lone rerun", j.test.name)
	}
	if end(jr, run.StatusPass, "") {
		t.Error("the lone rerun discarded")
	}
	// Still serial: no run failed alone.
	j1 := next()
	if _, ok := c.nextJob(now); ok {
		t.Fatal("two runs of p at once before any lone failure")
	}
	rep := &Report{Tests: []TestResult{{Package: "p", Test: "A"}, {Package: "q", Test: "C"}}}
	ws := c.serialWarnings(rep)
	if len(ws) != 1 || !strings.Contains(ws[0], "runs of package p went one at a time") ||
		!strings.Contains(ws[0], "B run 1 failed while another process of the package ran: x_test.go:31: stat state.db: no such file or directory") ||
		!strings.Contains(ws[0], "1 failing run that overlapped another process of the package was not counted (1 rerun alone, 1 passed)") {
		t.Errorf("warnings %q", ws)
	}
	if rep.Tests[0].Serial == "" || rep.Tests[1].Serial != "" {
		t.Errorf("Serial: %q, %q; want p's test's set, q's empty", rep.Tests[0].Serial, rep.Tests[1].Serial)
	}
	// A lone failure: the package's failures are the program's; its runs overlap again
	// and an overlapped failure counts.
	if end(j1, run.StatusFail, fileFailure) {
		t.Error("a lone failure discarded")
	}
	j2, j3 := next(), next()
	if j2.test.bin.Package != "p" || j3.test.bin.Package != "p" || !j3.overlapped {
		t.Fatalf("after a lone failure: %s, %s (overlapped %v); want two overlapping runs of p", j2.test.name, j3.test.name, j3.overlapped)
	}
	if end(j3, run.StatusFail, fileFailure) {
		t.Error("an overlapped failure discarded after a lone failure")
	}
	if ws := c.serialWarnings(&Report{}); len(ws) != 0 {
		t.Errorf("warnings %q after a lone failure", ws)
	}
}

// Only failures wait for a lone witness: a deadlock, a race the detector saw, a panic a
// detector explains are the program's whatever ran beside them.
func TestOverlappedBugsCount(t *testing.T) {
	for _, r := range []*AnalyzedRun{
		{Run: &run.Run{Status: run.StatusDeadlock}},
		{Run: &run.Run{Status: run.StatusTimeout}},
		{Run: &run.Run{Status: run.StatusFail, Races: [][]string{{"x"}}}},
		{Run: &run.Run{Status: run.StatusPass}},
	} {
		c := &campaign{lone: true}
		ts := &testState{bin: &build.TestBinary{Package: "p"}, name: "A"}
		if c.overlapFailed(c.pkg(ts), jobResult{job: job{test: ts, index: 1}, run: r}) {
			t.Errorf("%s run (races %d) discarded", r.Status, len(r.Races))
		}
	}
}

func TestFailureLine(t *testing.T) {
	for _, tc := range []struct {
		r    run.Run
		want string
	}{
		{run.Run{Status: run.StatusFail, Output: fileFailure}, "x_test.go:31: stat state.db: no such file or directory"},
		{run.Run{Status: run.StatusPanic, Panic: "runtime error: index out of range\n\ngoroutine 7"}, "panic: runtime error: index out of range"},
		{run.Run{Status: run.StatusFail, Output: "=== RUN   TestX\nexpected 1, got 2\n--- FAIL: TestX\nFAIL\n"}, "expected 1, got 2"},
		{run.Run{Status: run.StatusFail, Output: "--- FAIL: TestX\nFAIL\n"}, "fail"},
	} {
		if got := failureLine(&tc.r); got != tc.want {
			t.Errorf("failureLine(%q) = %q, want %q", tc.r.Output+tc.r.Panic, got, tc.want)
		}
	}
}
