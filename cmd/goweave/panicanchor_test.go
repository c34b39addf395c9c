package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/goweave/goweave/fuzzer"
)

// A panic in the module's code whose stack is printed by another frame is anchored at the
// panic's site (fuzzer/campaign/panicsite.go), on the module of testdata/panicanchor, where
// Put writes to a map that a reset request (taken at random by Apply's select) set to nil:
//   - TestRecovered recovers the panic and fails with its stack (t.Fatalf with
//     debug.Stack()): a flaky-panic at Put's line, the test's failure line related (before:
//     a flaky-failure at the test's t.Fatalf line, the module's line in no position);
//   - TestRepanic: Do's deferred function recovers the panic and panics again: a
//     flaky-panic at Put's line (before: at the re-panic in Do, Put's line only as a caller).
func TestFuzzCommandAnchorsPanics(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes two tests")
	}
	dir, _ := filepath.Abs("testdata/panicanchor")
	table, tableTest := filepath.Join(dir, "table.go"), filepath.Join(dir, "table_test.go")
	for _, c := range []struct{ test, want, related string }{
		{"TestRecovered", lineOf(t, dir, table, "// the panic's site"), lineOf(t, dir, tableTest, "// the test's failure")},
		{"TestRepanic", lineOf(t, dir, table, "// the panic's site"), ""},
	} {
		// -race=false: a map write panics the same way without the race detector
		stdout, stderr, code := runGoweave(t, dir, "fuzz", "-json", "-race=false", "-o", t.TempDir(), "-runs", "20", "-run", "^"+c.test+"$", "./...")
		var rep fuzzer.Report
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
		}
		// 20 runs of a select between two ready cases: all 20 alike has odds 2^-19
		if code != 1 || len(rep.Findings) != 1 {
			t.Errorf("%s: exit %d, findings %+v; want 1 and one flaky-panic\n%s", c.test, code, rep.Findings, stderr)
			continue
		}
		f := rep.Findings[0]
		if at := rel(dir, f.Positions[0].File, f.Positions[0].Line); f.Kind != "flaky-panic" || at != c.want {
			t.Errorf("%s: %s at %s (%s), want flaky-panic at %s", c.test, f.Kind, at, f.Message, c.want)
		}
		if c.related == "" {
			continue
		}
		found := false
		for _, p := range f.Positions[1:] {
			if rel(dir, p.File, p.Line) == c.related && p.Role == "the test's failure" {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: positions %+v, want the test's failure at %s among them", c.test, f.Positions, c.related)
		}
	}
}

// A negative WaitGroup counter whose Done counted a value that no Add counted names that
// value's send (analysis/wg_uncounted.go), on testdata/panicanchor/drain: Stop's drain
// counts a Done per queued value, StopIdle's nil task included, in the runs whose worker
// takes the closed done channel first: a negative-waitgroup at the drain's Done with
// StopIdle's send among its positions (before: the Dones only).
func TestFuzzCommandNamesUncountedSend(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes a test")
	}
	dir, _ := filepath.Abs("testdata/panicanchor")
	pool := filepath.Join(dir, "drain", "pool.go")
	stdout, stderr, code := runGoweave(t, dir, "fuzz", "-json", "-race=false", "-o", t.TempDir(), "-runs", "20", "-run", "^TestStopWithQueuedTasks$", "./...")
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if code != 1 || len(rep.Findings) != 1 {
		t.Fatalf("exit %d, findings %+v; want 1 and one negative-waitgroup\n%s", code, rep.Findings, stderr)
	}
	f := rep.Findings[0]
	done, send := lineOf(t, dir, pool, "// the drain's Done"), lineOf(t, dir, pool, "// the uncounted send")
	if at := rel(dir, f.Positions[0].File, f.Positions[0].Line); f.Kind != "negative-waitgroup" || at != done {
		t.Errorf("%s at %s, want negative-waitgroup at %s", f.Kind, at, done)
	}
	found := false
	for _, p := range f.Positions {
		found = found || rel(dir, p.File, p.Line) == send && p.Role == "sent a value no Add counted"
	}
	if !found {
		t.Errorf("positions %+v, want StopIdle's send at %s", f.Positions, send)
	}
}
