package campaign

import "testing"

// A run's failing subtests, innermost, tell apart failing runs that may fail for different
// reasons.
func TestFailedSubtests(t *testing.T) {
	out := `=== RUN   TestX
=== RUN   TestX/simple
--- FAIL: TestX (1.15s)
    --- PASS: TestX/simple (0.15s)
    --- FAIL: TestX/one_time/limit (1.00s)
        x_test.go:76: timed out
    --- FAIL: TestX/one_time (1.00s)
FAIL`
	if got := failedSubtests(out); got != "TestX/one_time/limit" {
		t.Errorf("failedSubtests = %q, want TestX/one_time/limit", got)
	}
	if got := failedSubtests("--- FAIL: TestX (0.00s)\n"); got != "" {
		t.Errorf("no subtest: %q", got)
	}
}
