package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer"
)

// testdata/examples/tafterend uses a test's T from goroutines (issue 21): workers joined
// before the test returns give nothing; a worker's t.Logf the test does not wait for is a
// t-used-after-test in every run (predicted when it logged in time, actual when it
// panicked); a t.Skip in a goroutine is a failnow-off-test. Before TestUse and TestEnd
// were recorded neither kind existed.
func TestTestingTUses(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes a test program")
	}
	src := exampleModule(t, "tafterend")
	stdout, stderr, code := runGoweave(t, src, "fuzz", "-json", "-runs", "10", "-o", t.TempDir(), "./...")
	if code != 1 {
		t.Fatalf("fuzz exit %d, want 1 (findings)\n%s", code, stderr)
	}
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var late *fuzzer.Finding
	for i, f := range rep.Findings {
		if len(f.Positions) == 0 {
			continue
		}
		p := f.Positions[0]
		key := f.Kind + " " + filepath.Base(p.File) + ":" + itoa(p.Line)
		switch key {
		case "t-used-after-test tafterend_test.go:31":
			if f.Test != "TestWorkerNotJoined" || !strings.Contains(f.Message, "t.Logf at tafterend_test.go:31") {
				t.Errorf("%s: test %s, message %q", key, f.Test, f.Message)
			}
			late = &rep.Findings[i]
		case "failnow-off-test tafterend_test.go:43":
			if f.Confidence != analysis.Actual || !strings.Contains(f.Message, "t.Skip at tafterend_test.go:43 is called by the goroutine started at tafterend_test.go:40") {
				t.Errorf("%s: confidence %s, message %q", key, f.Confidence, f.Message)
			}
		default:
			if f.Test == "TestWorkersJoined" || f.Kind == "t-used-after-test" || f.Kind == "failnow-off-test" {
				t.Errorf("unexpected %s in %s: %s", key, f.Test, f.Message)
			}
			continue // the failures and panics the two bugs cause
		}
		seen[key] = true
	}
	for _, want := range []string{"t-used-after-test tafterend_test.go:31", "failnow-off-test tafterend_test.go:43"} {
		if !seen[want] {
			t.Errorf("missing %s; findings %+v", want, rep.Findings)
		}
	}
	if late == nil {
		return
	}
	// The campaign confirms the prediction (the end, then the use: the use panics), and the
	// replay shows the panic.
	if late.Confidence != analysis.Confirmed {
		t.Fatalf("t-used-after-test: confidence %s (%s), want confirmed", late.Confidence, late.Confirmation)
	}
	stdout, stderr, code = runGoweave(t, src, "replay", late.ID)
	if code != 1 {
		t.Fatalf("replay exit %d, want 1 (the bug happened)\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"reproduced in 1 run(s): confirmed", "panic: Log in goroutine after TestWorkerNotJoined has completed: result 42"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("replay output lacks %q:\n%s", want, stdout)
		}
	}
}
