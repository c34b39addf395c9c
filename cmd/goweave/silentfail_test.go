package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/fuzzer"
)

// A test whose assertion prints with fmt.Printf and calls t.FailNow fails in the runs where
// its producer queues everything before the cancel: those runs are a flaky-failure at the
// test's declaration, named by what it printed, exit status 1 (survey 8's go-playground/pool:
// "0 bugs; 156 pass, 6 fail" before).
func TestFuzzCommandReportsUnloggedFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes a test")
	}
	dir, _ := filepath.Abs("testdata/silentfail")
	stdout, stderr, code := runGoweave(t, dir, "fuzz", "-json", "-race=false", "-o", t.TempDir(), "-runs", "40", ".")
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if code != 1 || len(rep.Findings) != 1 {
		t.Fatalf("exit %d, findings %+v; want 1 and one flaky-failure\n%s", code, rep.Findings, stderr)
	}
	f := rep.Findings[0]
	if f.Kind != "flaky-failure" || filepath.Base(f.Positions[0].File) != "silentfail_test.go" || f.Positions[0].Line != 23 ||
		!strings.Contains(f.Message, `without a message from t.Error or t.Fatal; its last output: "silentfail_test.go: 4 should not be equal 4"`) {
		t.Errorf("finding %s at %s:%d: %q; want a flaky-failure at TestQueuedBeforeCancel (line 23) naming its output", f.Kind, f.Positions[0].File, f.Positions[0].Line, f.Message)
	}
}
