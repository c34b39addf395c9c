package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/goweave/goweave/fuzzer"
)

// testdata/closedmeansnot: the test's fallback closes the channel the run function would
// send on, and the test asserts that the receive gets the zero value (afex/hystrix-go's
// TestFallbackAfterRejected, survey 9). The zero value is the outcome the test wants: no
// recv-on-closed, exit 0. (On main at 0fcfb20: recv-on-closed (actual, error) in 35 of 35
// passing runs, exit 1.)
func TestFuzzCommandClosedMeansNot(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes a package")
	}
	dir, _ := filepath.Abs("testdata/closedmeansnot")
	stdout, stderr, code := runGoweave(t, dir, "fuzz", "-json", "-race=false", "-runs", "35", "-o", t.TempDir(), ".")
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if code != 0 || len(rep.Findings) != 0 {
		t.Errorf("exit %d, findings %+v; want 0 and none\n%s", code, rep.Findings, stderr)
	}
}
