package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/fuzzer"
)

// A flaky failure whose cause is the order of two of the library's operations on one
// object names the two lines, in its message and as positions, with how many failing and
// passing runs had each order: a job's removal that locked the scheduler before its queued
// run asked for it, a check made before the Close it missed took the same lock. A test
// that fails by a random draw names no cause, though its goroutines lock a mutex in either
// order.
func TestFuzzCommandNamesOrderCause(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes three tests")
	}
	dir, _ := filepath.Abs("testdata/ordercause")
	stdout, stderr, code := runGoweave(t, dir, "fuzz", "-json", "-race=false", "-o", t.TempDir(), "-time", "12s", "./...")
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, stderr)
	}
	want := map[string]struct {
		msg         string
		first, then string
	}{
		"TestLimitedRunRuns":              {"; cause: the Lock at sched.go:64 came before the Lock at sched.go:77, on one mutex, in ", "sched.go:64", "sched.go:77"},
		"TestReconnectAbortsWhenCloseWon": {"; cause: the Lock at conn.go:22 came before the Lock at conn.go:29, on one mutex, in ", "conn.go:22", "conn.go:29"},
		"TestUnluckyDraw":                 {},
	}
	seen := map[string]bool{}
	for _, f := range rep.Findings {
		w, ok := want[f.Test]
		if f.Kind != "flaky-failure" || !ok {
			continue
		}
		seen[f.Test] = true
		roles := map[string]string{}
		for _, p := range f.Positions {
			roles[filepath.Base(p.File)+":"+itoa(p.Line)] = p.Role
		}
		if w.msg == "" {
			if strings.Contains(f.Message, "cause") {
				t.Errorf("%s: a cause named for a failure by a random draw: %s", f.Test, f.Message)
			}
			continue
		}
		if f.HappenedIn < 4 {
			// too few failing runs to tell (a machine loaded far past its cores): nothing
			// to check but that nothing is named
			if strings.Contains(f.Message, "cause") {
				t.Errorf("%s: a cause named from %d failing runs: %s", f.Test, f.HappenedIn, f.Message)
			}
			continue
		}
		if !strings.Contains(f.Message, w.msg) {
			t.Errorf("%s: message %q, want it to contain %q", f.Test, f.Message, w.msg)
		}
		if !strings.HasPrefix(roles[w.first], "cause: ") || !strings.Contains(roles[w.then], "when the test passed") {
			t.Errorf("%s: positions %v, want %s as the cause and %s", f.Test, roles, w.first, w.then)
		}
	}
	for test := range want {
		if !seen[test] {
			t.Errorf("no flaky-failure of %s: %+v\n%s", test, rep.Findings, stderr)
		}
	}
}
