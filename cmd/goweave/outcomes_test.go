package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/fuzzer"
)

// fuzzOutcomes runs goweave fuzz -json over testdata/outcomes with args.
func fuzzOutcomes(t *testing.T, args ...string) (*fuzzer.Report, string, int) {
	t.Helper()
	dir, _ := filepath.Abs("testdata/outcomes")
	// -race=false: these outcomes do not depend on the race detector, which makes runs 2-3x slower
	stdout, stderr, code := runGoweave(t, dir, append([]string{"fuzz", "-json", "-race=false", "-o", t.TempDir()}, args...)...)
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	return &rep, stderr, code
}

// A test waiting forever while a sleeper keeps the process alive is a hang: exit 1, a
// finding at the blocked receive. The receive is explained where the toolchain has the GC's
// leak detection (Go 1.26 and later, run at the time limit): a proven leak-chan, the hang
// grouped with it. A test spinning forever uses the CPU as a slow test does: nothing shows
// that it could not progress, so it is a warning that names it (slow, not hung), no hang.
func TestFuzzCommandReportsHangs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs tests until their time limit")
	}
	// The runtime's stuck check would end TestWaitsForever before its time limit (Go
	// 1.26+: its receive is proven leaked): off here, so the time limit's hang is tested.
	t.Setenv("GOWEAVE_STUCK", "0")
	rep, stderr, code := fuzzOutcomes(t, "-runs", "2", "-timeout", "3s", "-run", "^(TestWaitsForever|TestSpins)$", "./...")
	if code != 1 || len(rep.Findings) != 1 {
		t.Fatalf("exit %d, %d findings, want 1 and the hang of TestWaitsForever: %+v\n%s", code, len(rep.Findings), rep.Findings, stderr)
	}
	f := rep.Findings[0]
	p := f.Positions[0]
	kind := f.Kind
	if kind == "leak-chan" && len(f.Related) == 1 && f.Related[0].Kind == "hang" {
		kind = "hang"
	}
	if kind != "hang" || f.Test != "TestWaitsForever" || filepath.Base(p.File) != "hang_test.go" || p.Line != 22 || f.HappenedIn != 2 {
		t.Errorf("%s: %s at %s:%d in %d runs, want a hang at hang_test.go:22 in 2 runs", f.Test, f.Kind, filepath.Base(p.File), p.Line, f.HappenedIn)
	}
	spins := 0
	for _, w := range rep.Warnings {
		if strings.Contains(w, "outcomes.TestSpins: slow, not hung") && strings.Contains(w, "-timeout") {
			spins++
		}
	}
	if spins != 1 {
		t.Errorf("warnings %q: want one that calls TestSpins slow", rep.Warnings)
	}
}

// A test that is slow but finishes within its time limit is no finding.
func TestFuzzCommandSlowTestIsNoHang(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a ten-second test")
	}
	rep, stderr, code := fuzzOutcomes(t, "-runs", "1", "-timeout", "30s", "-run", "^TestSlowButFinishes$", "./...")
	if code != 0 || len(rep.Findings) != 0 {
		t.Errorf("exit %d, findings %+v; want 0 and none\n%s", code, rep.Findings, stderr)
	}
}

// A nil dereference that only some schedules reach is one flaky-panic finding at the
// dereference, and its replay reproduces the panic.
func TestFuzzCommandReportsFlakyPanic(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes and replays a test")
	}
	dir, _ := filepath.Abs("testdata/outcomes")
	out := t.TempDir()
	stdout, stderr, code := runGoweave(t, dir, "fuzz", "-json", "-o", out, "-time", "8s", "-run", "^TestWorkerBeforeConfig$", "./...")
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if code != 1 || len(rep.Findings) != 1 {
		t.Fatalf("exit %d, findings %+v; want 1 and one flaky-panic\n%s", code, rep.Findings, stderr)
	}
	f := rep.Findings[0]
	if p := f.Positions[0]; f.Kind != "flaky-panic" || filepath.Base(p.File) != "hang_test.go" || p.Line != 59 || f.HappenedIn == 0 || f.HappenedIn >= f.OfRuns {
		t.Fatalf("finding %s at %s:%d in %d of %d runs, want flaky-panic at hang_test.go:59 in some runs", f.Kind, filepath.Base(p.File), p.Line, f.HappenedIn, f.OfRuns)
	}
	// Where the traces show it: the worker's Lock ran before the test's, the other order
	// when the test passed (only known when a passing run came before the first panic).
	for _, p := range f.Positions[1:] {
		if strings.HasPrefix(p.Role, "ran ") && p.Line != 58 && p.Line != 63 {
			t.Errorf("order difference at line %d (%s), want the Locks at 58 and 63", p.Line, p.Role)
		}
	}
	// A replay holds the test's Lock for the worker's within a window (steering may slow a
	// goroutine, never stop it): on a machine loaded far past its cores the worker can miss
	// it (8 of 10 single attempts once, in the whole suite beside other work). Each replay
	// gets the attempts a user's goweave replay gets by default (3).
	reproduced := 0
	for range 10 {
		if _, _, code := runGoweave(t, dir, "replay", "-runs", "3", "-o", out, f.ID); code == 1 {
			reproduced++
		}
	}
	if reproduced < 9 {
		t.Errorf("the replay reproduced the panic in %d of 10 replays of up to 3 attempts, want at least 9", reproduced)
	}
}
