package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/goweave/goweave/fuzzer"
)

// Waits that end whatever the partners do are not deadlocks (survey 8's classes 15 and 17):
// a select on the workers and a 30 s time.After, blocked under a lock when the test ends
// (timedwaitlock: watermill's router Close), releases the lock at the deadline, so neither
// it nor the IsClosed that waits for the lock is "blocked forever"; a range over a channel
// its own goroutine just closed under the lock only drains the buffer (closedrange:
// go-playground/pool's closeWithError) and predicts no mixed deadlock.
func TestFuzzCommandWaitsThatCannotLastForever(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes two packages")
	}
	for _, name := range []string{"timedwaitlock", "closedrange"} {
		dir, _ := filepath.Abs(filepath.Join("testdata", name))
		stdout, stderr, code := runGoweave(t, dir, "fuzz", "-json", "-race=false", "-o", t.TempDir(), "-runs", "35", ".")
		var rep fuzzer.Report
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("%s: decoding JSON: %v\n%s\nstderr:\n%s", name, err, stdout, stderr)
		}
		if name == "closedrange" && code != 0 { // timedwaitlock's test-only leak sets 1
			t.Errorf("%s: exit %d, want 0\n%s", name, code, stderr)
		}
		for _, f := range rep.Findings {
			switch {
			case f.Kind == "mixed-deadlock", f.Kind == "leak-mutex", f.Kind == "deadlock":
				t.Errorf("%s: %s (%s) %q", name, f.Kind, f.Confidence, f.Message)
			case f.Kind == "leak-chan" && !f.TestOnly:
				t.Errorf("%s: %s not test-only: %q", name, f.Kind, f.Message) // the worker the test blocks on purpose
			}
		}
	}
}
