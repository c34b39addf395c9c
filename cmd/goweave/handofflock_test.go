package main

import (
	"encoding/json"
	"testing"

	"github.com/goweave/goweave/fuzzer"
)

// testdata/handofflock (prometheus/client_golang's summary): a mutex locked by Observe and
// unlocked by a flusher goroutine it starts. No schedule deadlocks; before the hand-off
// rules, 9 of 22 runs were ended as a lock cycle by the stuck check and a cyclic-deadlock
// was predicted and "confirmed". testdata/chanhandofflock: the same with the flusher already
// running, the mutex sent to it with the buffer (a false lock cycle before the stuck check
// followed mutexes through channels).
func TestFuzzCommandHandedOffLockNoDeadlock(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes a test program")
	}
	for _, dir := range []string{"handofflock", "chanhandofflock"} {
		t.Run(dir, func(t *testing.T) {
			src := t.TempDir()
			copyDir(t, "testdata/"+dir, src)
			stdout, stderr, code := runGoweave(t, src, "fuzz", "-json", "-runs", "12", "-p", "1", "-o", t.TempDir(), "./...")
			var rep fuzzer.Report
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			for _, f := range rep.Findings {
				t.Errorf("finding %s (%s) at %v: %s", f.Kind, f.Confidence, f.Positions, f.Message)
			}
			if code != 0 {
				t.Errorf("fuzz exit %d, want 0\n%s", code, stderr)
			}
		})
	}
}
