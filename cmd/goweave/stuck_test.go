package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goweave/goweave/fuzzer"
)

// The runtime's stuck check (docs/stuck-detection.md) ends a run as soon as its state
// shows it can never move again, so runs that used to hang until their time limit end as
// deadlocks, with the same explanation and no hang: testdata/timelimit's two transfers
// locking two accounts in opposite orders beside a busy heartbeat are a lock cycle found
// while the heartbeat runs; its receive nobody sends to is proven leaked where the runtime
// has the GC's leak detection (Go 1.26+; Go 1.25 still waits for the time limit there).
func TestFuzzCommandEndsStuckRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and fuzzes testdata/timelimit")
	}
	dir, _ := filepath.Abs("testdata/timelimit")
	// A time limit no run of this test should reach: a hang now means the check missed it.
	stdout, stderr, code := runGoweave(t, dir, "fuzz", "-json", "-race=true", "-o", t.TempDir(), "-runs", "2", "-timeout", "20s", "./...")
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if code != 1 {
		t.Fatalf("exit %d, want 1 (findings)\n%s", code, stderr)
	}
	for _, tr := range rep.Tests {
		if tr.Test == "TestTransfersBothWays" && (tr.Statuses["deadlock"] == 0 || tr.Statuses["timeout"] != 0) {
			t.Errorf("%s: statuses %v, want deadlocks, no timeout (ended by the stuck check, not the time limit)", tr.Test, tr.Statuses)
		}
	}
	cycle := false
	for _, f := range rep.Findings {
		var kinds []string
		for _, rel := range f.Related {
			kinds = append(kinds, rel.Kind)
		}
		if f.Test == "TestTransfersBothWays" {
			if f.Kind != "cyclic-deadlock" || f.Positions[0].Line != 59 || !slices.Contains(kinds, "deadlock") || slices.Contains(kinds, "hang") {
				t.Errorf("%s: %s at line %d with %v, want the lock cycle at line 59 with the deadlock, no hang", f.Test, f.Kind, f.Positions[0].Line, kinds)
			}
			for _, rel := range f.Related {
				if rel.Kind == "deadlock" && rel.Position.Line == 59 && !strings.Contains(rel.Message, "the runtime found the lock cycle") {
					t.Errorf("the deadlock at line 59 does not say the runtime found the cycle: %s", rel.Message)
				}
			}
			cycle = true
		}
		if f.Test == "TestWaitsForAJobNobodySends" && f.Kind == "leak-chan" && (f.Positions[0].Line != 42 || slices.Contains(kinds, "hang")) {
			t.Errorf("%s: leak-chan at line %d with %v, want it at line 42 with no hang (ended when proven)", f.Test, f.Positions[0].Line, kinds)
		}
	}
	if !cycle {
		t.Errorf("no finding of TestTransfersBothWays: %+v", rep.Findings)
	}
}
