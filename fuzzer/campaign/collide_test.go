package campaign

import (
	"strings"
	"testing"
	"time"

	"github.com/goweave/goweave/fuzzer/build"
	"github.com/goweave/goweave/fuzzer/run"
)

const bindFailure = "=== RUN   TestB\n    x_test.go:22: server exited: listen tcp 127.0.0.1:16379: bind: address already in use\n--- FAIL: TestB (0.00s)\nFAIL\n"

func TestCollision(t *testing.T) {
	for _, tc := range []struct {
		r    run.Run
		want string
	}{
		{run.Run{Status: run.StatusFail, Output: bindFailure}, "x_test.go:22: server exited: listen tcp 127.0.0.1:16379: bind: address already in use"},
		{run.Run{Status: run.StatusPanic, Panic: "open /tmp/x.lock: file exists"}, "open /tmp/x.lock: file exists"},
		{run.Run{Status: run.StatusFail, Output: "flock: Resource temporarily unavailable\n"}, "flock: Resource temporarily unavailable"},
		{run.Run{Status: run.StatusFail, Output: "Example_zpop:\ngot:\nserver exited: 1:M 27 Nov # Failed listening on port 16379 (TCP), aborting.\n"}, "server exited: 1:M 27 Nov # Failed listening on port 16379 (TCP), aborting."},
		{run.Run{Status: run.StatusPass, Output: bindFailure}, ""},                                 // passed: nothing to excuse
		{run.Run{Status: run.StatusFail, Output: "x_test.go:9: sum = 5, want 6\n"}, ""},            // a test's own failure
		{run.Run{Status: run.StatusFail, Output: "listen tcp :80: bind: permission denied\n"}, ""}, // not a collision
	} {
		if got := collision(&tc.r); got != tc.want {
			t.Errorf("collision(%s %q) = %q, want %q", tc.r.Status, tc.r.Output+tc.r.Panic, got, tc.want)
		}
	}
}

// Two processes of one package's test binary at once (-p) collide on a fixed port, which
// go test never does: the failing run is not a result of the test, its request runs again,
// and the package's runs go one at a time from then on. Other packages' runs still overlap,
// and a collision failure in a run that had its package to itself is reported as any other.
func TestCollidingRunsSerialisePackage(t *testing.T) {
	c := &campaign{cfg: Config{Parallel: 3, RunsPerTest: 10}}
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
	ja, jb := next(), next()
	if ja.test != a || jb.test != b {
		t.Fatalf("picked %s, %s; want A, B", ja.test.name, jb.test.name)
	}
	req := &RunRequest{Strategy: "flow", Recipe: []byte("x")}
	jb.request = req
	c.finish(jobResult{job: jb, run: &AnalyzedRun{Run: &run.Run{Status: run.StatusFail, Output: bindFailure}, Index: jb.index, Request: req}})
	if b.runs != 0 || b.statuses["fail"] != 0 || b.failRuns != 0 || len(b.found) != 0 {
		t.Errorf("the collided run counted: %d runs, statuses %v", b.runs, b.statuses)
	}
	if len(b.queue) != 1 || b.queue[0] != req {
		t.Errorf("queue %v, want the collided run's request back", b.queue)
	}
	if b.done {
		t.Error("B ended")
	}
	if len(c.warnings) != 1 || !strings.Contains(c.warnings[0], "runs of package p serialised: its tests collide on a fixed resource when run in parallel (B run 1: ") ||
		!strings.Contains(c.warnings[0], "bind: address already in use") {
		t.Errorf("warnings %q", c.warnings)
	}
	// A's run is under way: no other run of p starts; q's do.
	jc := next()
	if jc.test != cq {
		t.Fatalf("picked %s while A runs, want C", jc.test.name)
	}
	// C's run failing on a port while A runs is C's own: another package.
	if c.endPkgRun(jobResult{job: jc, run: &AnalyzedRun{Run: &run.Run{Status: run.StatusFail, Output: bindFailure}}}) {
		t.Error("a run of q discarded for overlapping a run of p")
	}
	cq.inflight--
	// A ends: one run of p may start, not two.
	if c.endPkgRun(jobResult{job: ja, run: &AnalyzedRun{Run: &run.Run{Status: run.StatusPass}}}) {
		t.Error("a passing run discarded")
	}
	a.inflight--
	j := next()
	if j.test.bin.Package != "p" {
		t.Fatalf("picked %s after A ended, want a test of p", j.test.name)
	}
	if j.overlapped {
		t.Error("the serial run of p overlapped another")
	}
	if k, ok := c.nextJob(now); ok && k.test.bin.Package == "p" {
		t.Fatalf("a second run of p (%s) started beside %s", k.test.name, j.test.name)
	}
	// B, which has had fewer runs, goes first: p's tests take turns.
	if j.test != b {
		t.Errorf("picked %s after A ended, want B (fewer runs)", j.test.name)
	}
	// The same failure when p's runs are serial is the test's: it is reported.
	if c.endPkgRun(jobResult{job: j, run: &AnalyzedRun{Run: &run.Run{Status: run.StatusFail, Output: bindFailure}}}) {
		t.Error("a serial run's failure discarded")
	}
	if len(c.warnings) != 1 {
		t.Errorf("warned %d times, want once", len(c.warnings))
	}
}
