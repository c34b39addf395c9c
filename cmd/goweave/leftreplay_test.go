package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goweave/goweave/fuzzer"
)

// goweaveIn runs goweave in dir with the extra environment entries env.
func goweaveIn(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(buildGoweave(t), args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// A test whose first run leaves a lock file behind fails every later run: the replays of
// its first run's schedule fail too, and after 5 unsteered failures (not 14) it is named
// as state left behind, an error, with no flaky-failure.
func TestFuzzCommandLeftStateReplayed(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes a test with the goweave runtime")
	}
	dir, _ := filepath.Abs("testdata/leftreplay")
	stdout, stderr, code := goweaveIn(t, dir, []string{"TMPDIR=" + t.TempDir()},
		"fuzz", "-json", "-v", "-fresh", "-race=false", "-o", t.TempDir(), "-time", "30s", "-run", "^TestClaim$", ".")
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if code != 2 || len(rep.Tests) != 1 {
		t.Fatalf("exit %d, %d tests, want 2 and one\n%s", code, len(rep.Tests), stderr)
	}
	tr := rep.Tests[0]
	if f := tr.FailsAfter; f == nil || f.Replayed != 2 || f.PassedFirst != 1 || tr.Runs > 10 {
		t.Errorf("TestClaim %+v, failsAfter %+v: want the verdict after both replays failed, within 10 runs", tr, tr.FailsAfter)
	}
	if len(rep.Errors) != 1 || !strings.Contains(rep.Errors[0], "2 replaying the schedule of run 1, which passed; not fuzzed further): the test depends on state an earlier run left behind") {
		t.Errorf("errors %q, want one naming the replays and the state left behind", rep.Errors)
	}
	for _, f := range rep.Findings {
		if f.Kind == "flaky-failure" {
			t.Errorf("a flaky-failure of state left behind: %s", f.Message)
		}
	}
}

// A select that takes a stale result in three runs of four: when its first run passes, the
// replays of that run's schedule pass too (the select takes its recorded case), so it is a
// flaky failure, never state left behind, however many of the next runs fail. Campaigns
// are repeated until one's first run passes (one in four; 30 campaigns all failing their
// first run: 2 in 10,000).
func TestFuzzCommandScheduleFailureNotLeftState(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes a test with the goweave runtime, several times")
	}
	dir, _ := filepath.Abs("testdata/leftreplay")
	replayPassed := regexp.MustCompile(`(?m)^leftreplay\.TestFreshest run \d+ replay-pass \(replay run 1, [^\n]*\): pass`)
	for campaign := 1; campaign <= 30; campaign++ {
		stdout, stderr, code := goweaveIn(t, dir, nil, "fuzz", "-json", "-v", "-fresh", "-race=false", "-o", t.TempDir(), "-runs", "16", "-run", "^TestFreshest$", ".")
		var rep fuzzer.Report
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
		}
		if len(rep.Errors) > 0 || len(rep.Tests) != 1 || rep.Tests[0].FailsAfter != nil {
			t.Fatalf("campaign %d: errors %q, tests %+v: want no verdict of state left behind\n%s", campaign, rep.Errors, rep.Tests, stderr)
		}
		if !strings.Contains(stderr, "leftreplay.TestFreshest run 1 record: pass") {
			continue // its first run failed: a flaky failure as ever
		}
		if n := len(replayPassed.FindAllString(stderr, -1)); n != 2 {
			t.Errorf("campaign %d: %d replays of the passing first run passed, want 2\n%s", campaign, n, stderr)
		}
		flaky := false
		for _, f := range rep.Findings {
			flaky = flaky || (f.Kind == "flaky-failure" && f.Test == "TestFreshest")
		}
		if code != 1 || !flaky {
			t.Errorf("campaign %d: exit %d, findings %+v: want TestFreshest's flaky-failure", campaign, code, rep.Findings)
		}
		return
	}
	t.Fatal("no campaign's first run passed in 30")
}
