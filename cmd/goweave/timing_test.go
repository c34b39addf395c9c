package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer"
)

// A test that waits for a worker with time.Sleep(20ms) fails when goweave's schedule holds
// the worker past the sleep: a timing-dependent failure, reported as such (a warning with
// a "timing" field naming the Sleep and the held worker, a SARIF result that does not
// gate), not a bug: exit status 0. An order violation in the same package (a read woken
// by an announcement sent before the write), whose test also sleeps, stays a bug: exit 1.
func TestFuzzCommandTellsTimingFromBugs(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes two tests")
	}
	dir, _ := filepath.Abs("testdata/timing")
	run := func(test string) (*fuzzer.Report, string, string, int) {
		sarif := filepath.Join(t.TempDir(), "out.sarif")
		stdout, stderr, code := runGoweave(t, dir, "fuzz", "-json", "-race=false", "-o", t.TempDir(), "-runs", "30",
			"-sarif", sarif, "-run", "^"+test+"$", ".")
		var rep fuzzer.Report
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
		}
		data, err := os.ReadFile(sarif)
		if err != nil {
			t.Fatal(err)
		}
		checkJSONSchema(t, []byte(stdout), data)
		return &rep, string(data), stderr, code
	}

	rep, sarif, stderr, code := run("TestSleepsForWorker")
	if code != 0 || len(rep.Findings) != 1 {
		t.Fatalf("TestSleepsForWorker: exit %d, findings %+v; want 0 and one timing-dependent failure\n%s", code, rep.Findings, stderr)
	}
	f := rep.Findings[0]
	tm := f.Timing
	if f.Kind != "flaky-failure" || tm == nil || f.Severity != "warning" {
		t.Fatalf("TestSleepsForWorker: %s, severity %s, timing %+v; want a flaky-failure warning with timing", f.Kind, f.Severity, tm)
	}
	if tm.Wait != "time.Sleep(20ms)" || tm.WaitKind != "sleep" || tm.WaitMs != 20 ||
		filepath.Base(tm.At.File) != "timing_test.go" || tm.At.Line != 12 ||
		filepath.Base(tm.HeldAt.File) != "timing.go" || tm.HeldAt.Line != 17 ||
		tm.Delayed.Spawn != "timing.go:16" || tm.Waiter.Spawn != "" || tm.Runs != f.HappenedIn || tm.DelayedMs <= 0 {
		t.Errorf("timing %+v: want time.Sleep(20ms) at timing_test.go:12 by the test, the worker started at timing.go:16 held before timing.go:17, in all %d failing runs", *tm, f.HappenedIn)
	}
	if !strings.Contains(f.Message, "timing-dependent: the test waits with time.Sleep(20ms) at timing_test.go:12") {
		t.Errorf("message %q does not name the Sleep", f.Message)
	}
	if !strings.Contains(sarif, `"gating": false`) || !strings.Contains(sarif, `"timing-dependent"`) || !strings.Contains(sarif, `"level": "warning"`) {
		t.Errorf("SARIF does not mark the result timing-dependent and not gating:\n%s", sarif)
	}

	rep, sarif, stderr, code = run("TestReadsAfterAnnouncement")
	if code != 1 || len(rep.Findings) != 1 {
		t.Fatalf("TestReadsAfterAnnouncement: exit %d, findings %+v; want 1 and the order violation\n%s", code, rep.Findings, stderr)
	}
	if f := rep.Findings[0]; f.Kind != "flaky-failure" || f.Timing != nil || f.Severity != "error" {
		t.Errorf("TestReadsAfterAnnouncement: %s, severity %s, timing %+v; want a flaky-failure error without timing", f.Kind, f.Severity, f.Timing)
	}
	if !strings.Contains(sarif, `"gating": true`) {
		t.Errorf("SARIF does not mark the order violation gating:\n%s", sarif)
	}
}

// A test that gives its own worker 20 ms to start waiting, and releases it only if it is
// waiting, deadlocks when goweave holds the worker past the sleep: the test's timing, a
// warning (exit status 0). A library's Ping that blocks forever when its worker is late,
// after the same kind of sleep, is the library's deadlock: an error (exit status 1), the
// evidence notwithstanding.
func TestFuzzCommandTimingOfDeadlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes two tests")
	}
	dir, _ := filepath.Abs("testdata/timing")
	run := func(test string) (*fuzzer.Report, string, int) {
		stdout, stderr, code := runGoweave(t, dir, "fuzz", "-json", "-race=false", "-o", t.TempDir(), "-runs", "30", "-run", "^"+test+"$", ".")
		var rep fuzzer.Report
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
		}
		return &rep, stderr, code
	}
	rep, stderr, code := run("TestReleasesWaitingWorker")
	if code != 0 || len(rep.Findings) == 0 {
		t.Fatalf("TestReleasesWaitingWorker: exit %d, findings %+v; want 0 and timing-dependent findings\n%s", code, rep.Findings, stderr)
	}
	for _, f := range rep.Findings {
		if f.Timing == nil || f.Severity != "warning" || f.Timing.WaitKind != "sleep" || filepath.Base(f.Timing.At.File) != "barrier_test.go" || f.Timing.At.Line != 23 {
			t.Errorf("TestReleasesWaitingWorker: %s, severity %s, timing %+v; want a warning naming the sleep at barrier_test.go:23", f.Kind, f.Severity, f.Timing)
		}
	}
	rep, stderr, code = run("TestPingsStartedWorker")
	if code != 1 || len(rep.Findings) == 0 {
		t.Fatalf("TestPingsStartedWorker: exit %d, findings %+v; want 1 and the deadlock\n%s", code, rep.Findings, stderr)
	}
	for _, f := range rep.Findings {
		if f.Kind == "deadlock" && (f.Timing != nil || f.Severity != "error") {
			t.Errorf("TestPingsStartedWorker: deadlock severity %s, timing %+v; want an error without timing", f.Severity, f.Timing)
		}
	}
}

// One test per shape of a timing-dependent failure whose evidence is not a wait expiring
// inside a recorded hold: a wall-clock assertion (the failure's message reports the
// measured duration over its bound), a time.After already expired when its select looked
// while the other case was ready, and a context's deadline that stops a consumer while
// its producer is held; and one whose wait is a timer's Reset. Each is reported as timing-dependent (a warning, exit status 0)
// with the shape's evidence. A run may fail without any evidence (a machine slower than
// the bound, with nothing recorded), which rightly keeps the finding a bug; the campaign is
// then retried, up to three times in all.
func TestFuzzCommandTimingShapes(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes four tests")
	}
	dir, _ := filepath.Abs("testdata/timing")
	for test, want := range map[string]func(*analysis.Timing) bool{
		"TestMeasuresHandoff": func(tm *analysis.Timing) bool {
			return tm.WaitKind == "clock" && tm.WaitMs == 20 && tm.MeasuredMs > 20 && filepath.Base(tm.At.File) == "measured_test.go" && tm.At.Line == 23
		},
		"TestChecksClosedInTime": func(tm *analysis.Timing) bool {
			return tm.WaitKind == "timer" && filepath.Base(tm.At.File) == "look_test.go" && tm.At.Line == 14
		},
		"TestForwardsBeforeDeadline": func(tm *analysis.Timing) bool {
			return tm.WaitKind == "func-timer" && filepath.Base(tm.At.File) == "deadline_test.go" && tm.At.Line == 12
		},
		// An expiration loop's timer, reset to the entry's TTL, fired while the test was
		// held before its check (before: a Reset recorded no duration, no evidence).
		"TestKeepsEntryUntilTTL": func(tm *analysis.Timing) bool {
			return tm.WaitKind == "timer" && strings.Contains(tm.Wait, "reset to") && strings.Contains(tm.Wait, "(Timer.Reset)") &&
				filepath.Base(tm.At.File) == "expirer.go" && tm.At.Line == 34 && tm.Delayed.Spawn == ""
		},
	} {
		t.Run(test, func(t *testing.T) {
			var problem string
			for attempt := 1; attempt <= 3; attempt++ {
				stdout, stderr, code := runGoweave(t, dir, "fuzz", "-json", "-race=false", "-v", "-o", t.TempDir(), "-runs", "30", "-run", "^"+test+"$", ".")
				var rep fuzzer.Report
				if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
					t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
				}
				problem = ""
				switch {
				case len(rep.Findings) == 0:
					problem = "no finding (the test never failed)"
				case code != 0:
					problem = fmt.Sprintf("exit %d", code)
				}
				for _, f := range rep.Findings {
					if f.Kind != "flaky-failure" || f.Timing == nil || f.Severity != "warning" || !want(f.Timing) {
						problem += fmt.Sprintf("; %s %s, timing %+v", f.Kind, f.Severity, f.Timing)
					}
				}
				if problem == "" {
					return
				}
				noEvidence := strings.Contains(stderr, "no timing evidence")
				t.Logf("attempt %d: %s (a failing run without evidence: %v)", attempt, problem, noEvidence)
				if len(rep.Findings) > 0 && !noEvidence {
					break // every failing run had evidence, yet the finding is not as wanted
				}
			}
			t.Errorf("%s: %s", test, problem)
		})
	}
}
