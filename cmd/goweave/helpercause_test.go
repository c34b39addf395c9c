package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/fuzzer"
)

// A flaky failure raised through a dependency's assertion (testdata/helpercausecheck,
// replaced: a require in testify's manner, Errorf and FailNow from its own frames) is
// reported at the test's line, and the run is cut at that failure as at a t.Fatal's: the
// Lock the failure cut off (the Pause after the assertion) and the Lock that ran after the
// failure (the worker's Push, released by the test's deferred close) are no cause. Before
// the runtime recorded such a failure (no TestUse from a dependency's frames), every
// failing run counted the Push as "before the Pause that never ran": a cause named for a
// random draw.
func TestFuzzDependencyRequireFailure(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes a test")
	}
	dir, _ := filepath.Abs("testdata/helpercause")
	stdout, stderr, code := runGoweave(t, dir, "fuzz", "-json", "-race=false", "-o", t.TempDir(), "-time", "12s", "./...")
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, stderr)
	}
	want := filepath.Base(lineOf(t, dir, filepath.Join(dir, "queue_test.go"), "// the failure"))
	found := false
	for _, f := range rep.Findings {
		if f.Kind != "flaky-failure" || f.Test != "TestUnluckyRequire" {
			t.Errorf("finding %s of %s: want only the flaky failure: %s", f.Kind, f.Test, f.Message)
			continue
		}
		found = true
		if len(f.Positions) == 0 || filepath.Base(f.Positions[0].File)+":"+itoa(f.Positions[0].Line) != want {
			t.Errorf("flaky-failure at %+v, want %s (the test's call of the assertion)", f.Positions, want)
		}
		if strings.Contains(f.Message, "cause") {
			t.Errorf("a cause named for a failure by a random draw (%d failing runs): %s", f.HappenedIn, f.Message)
		}
	}
	if !found {
		t.Errorf("no flaky-failure of TestUnluckyRequire: %+v\n%s", rep.Findings, stderr)
	}
}
