package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goweave/goweave/fuzzer"
)

// At the time limit goweave asks the test process to run the GC's leak detection before
// it ends, and says why a hung test hangs, at the operations that can never proceed
// (testdata/timelimit, each test with a busy heartbeat goroutine, so the runtime never
// reports a deadlock): a receive nothing can send to is a proven leak-chan (Go 1.26 and
// later), two transfers locking two accounts in opposite orders a lock cycle at their
// second Lock. The hang each run also showed is part of the same finding, and exit is 1.
func TestFuzzCommandExplainsHangs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs tests until their time limit")
	}
	// The runtime's stuck check would end these runs before their time limit
	// (TestFuzzCommandEndsStuckRuns): off here, so the time limit's path is tested.
	t.Setenv("GOWEAVE_STUCK", "0")
	dir, _ := filepath.Abs("testdata/timelimit")
	// -race=false: how these runs end does not depend on the race detector (2-3x slower)
	stdout, stderr, code := runGoweave(t, dir, "fuzz", "-json", "-race=false", "-o", t.TempDir(), "-runs", "2", "-timeout", "3s", "./...")
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if code != 1 || len(rep.Findings) != 2 {
		t.Fatalf("exit %d, %d findings, want 1 and one per test: %+v\n%s", code, len(rep.Findings), rep.Findings, stderr)
	}
	for _, f := range rep.Findings {
		p := f.Positions[0]
		var kinds []string
		for _, rel := range f.Related {
			kinds = append(kinds, rel.Kind)
		}
		if !slices.Contains(kinds, "hang") || f.HappenedIn != 2 || filepath.Base(p.File) != "timelimit_test.go" {
			t.Errorf("%s: %s at %s:%d in %d runs with %v, want it in 2 runs with the hang", f.Test, f.Kind, filepath.Base(p.File), p.Line, f.HappenedIn, kinds)
		}
		switch f.Test {
		case "TestWaitsForAJobNobodySends":
			if f.Kind != "leak-chan" || p.Line != 42 || !strings.Contains(f.Message, "time limit") {
				t.Errorf("%s: %s at line %d (%s), want a leak-chan proven at the time limit at line 42", f.Test, f.Kind, p.Line, f.Message)
			}
		case "TestTransfersBothWays":
			// the predicted cycle names the cause; the deadlock the run showed is related
			if f.Kind != "cyclic-deadlock" || p.Line != 59 || !slices.Contains(kinds, "deadlock") {
				t.Errorf("%s: %s at line %d with %v, want the lock cycle at line 59 with the deadlock", f.Test, f.Kind, p.Line, kinds)
			}
			for _, rel := range f.Related {
				if rel.Kind == "deadlock" && rel.Position.Line == 59 && !strings.Contains(rel.Message, "a lock cycle") {
					t.Errorf("the deadlock at line 59 does not name the cycle: %s", rel.Message)
				}
			}
		default:
			t.Errorf("finding of an unexpected test %s", f.Test)
		}
	}
}
