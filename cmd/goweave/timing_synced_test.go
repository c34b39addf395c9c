package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/fuzzer"
)

// A test that sleeps for its worker and then synchronises with it anyway (the worker answers
// its request) fails the same whatever the clock: the Journal's Sync answers with a key still
// queued. goweave's schedule holds the worker across the sleep in the failing runs, but the
// test learned of the held operation before it failed: the failure is a bug (an error, exit
// status 1), not timing-dependent. A test that sleeps for a task to run and then stops it
// (a close the task sees) before waiting for its answer stays timing-dependent (a warning,
// exit status 0), though it too hears from the task before failing.
func TestFuzzCommandSleepMadeUpFor(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes two tests")
	}
	dir, _ := filepath.Abs("testdata/timing")
	for test, timing := range map[string]bool{"TestSyncsAfterSleep": false, "TestStopsAfterSleep": true} {
		t.Run(test, func(t *testing.T) {
			var problem string
			for attempt := 1; attempt <= 3; attempt++ {
				stdout, stderr, code := runGoweave(t, dir, "fuzz", "-json", "-race=false", "-v", "-o", t.TempDir(), "-runs", "30", "-run", "^"+test+"$", ".")
				var rep fuzzer.Report
				if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
					t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
				}
				problem = ""
				want := 1
				if timing {
					want = 0
				}
				switch {
				case len(rep.Findings) != 1:
					problem = fmt.Sprintf("findings %+v, want one flaky-failure", rep.Findings)
				case code != want:
					problem = fmt.Sprintf("exit %d, want %d", code, want)
				}
				for _, f := range rep.Findings {
					tm := f.Timing
					switch {
					case f.Kind != "flaky-failure":
						problem += "; " + f.Kind
					case !timing && (tm != nil || f.Severity != "error"):
						problem += fmt.Sprintf("; %s, timing %+v: want an error without timing", f.Severity, tm)
					case timing && (tm == nil || f.Severity != "warning" || tm.WaitKind != "sleep" || filepath.Base(tm.At.File) != "synced_test.go" || tm.At.Line != 27):
						problem += fmt.Sprintf("; %s, timing %+v: want a warning naming the sleep at synced_test.go:27", f.Severity, tm)
					}
				}
				if problem == "" {
					return
				}
				// A run of the stopped task that failed with nothing recorded (a machine
				// slower than the sleep) rightly keeps the finding a bug: try again.
				noEvidence := strings.Contains(stderr, "no timing evidence")
				t.Logf("attempt %d: %s (a failing run without evidence: %v)", attempt, problem, noEvidence)
				if !timing && len(rep.Findings) > 0 || timing && len(rep.Findings) > 0 && !noEvidence {
					break
				}
			}
			t.Errorf("%s: %s", test, problem)
		})
	}
}
