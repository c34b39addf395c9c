package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/fuzzer"
)

// testdata/sharedfile's two tests each create, grow and remove one fixed file in the
// package directory, as tidwall/buntdb's tests do with "data.db" (survey 9). go test runs
// one process per package, so they pass; two processes at once (-p 2) remove or grow the
// file under each other, and the failures name no OS collision ("no such file or
// directory", a wrong size). That is the campaign's parallelism, not a bug of the module:
// no finding, exit 0, and the runs it discarded named in a warning (before the rule of
// fuzzer/campaign/overlap.go: 2 flaky-failures and an error, exit 2).
func TestFuzzCommandSharedFile(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes two tests")
	}
	dir, _ := filepath.Abs("testdata/sharedfile")
	t.Cleanup(func() { removeStateFile(dir) })
	stdout, stderr, code := runGoweave(t, dir, "fuzz", "-json", "-race=false", "-p", "2", "-time", "6s", "-o", t.TempDir(), ".")
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if code != 0 || len(rep.Findings) != 0 || len(rep.Errors) != 0 {
		t.Errorf("exit %d, findings %+v, errors %q; want 0 and none\n%s", code, rep.Findings, rep.Errors, stderr)
	}
	discarded := 0
	for _, tr := range rep.Tests {
		if tr.Runs == 0 {
			t.Errorf("%s: no run", tr.Test)
		}
		discarded += tr.Discarded
		if tr.Discarded > 0 && tr.Serial == "" {
			t.Errorf("%s: %d runs discarded, and no Serial", tr.Test, tr.Discarded)
		}
	}
	if discarded > 0 && !strings.Contains(strings.Join(rep.Warnings, "\n"), "runs of package sharedfile went one at a time") {
		t.Errorf("%d runs discarded; warnings %q, want one saying the package's runs ended serial", discarded, rep.Warnings)
	}
}

// testdata/flakyalone's test fails for its own schedule (which worker locks first), with
// or without a second process beside it: with -p 2 its failure is still a flaky-failure
// (a failing run that overlapped another is rerun alone, and fails again).
func TestFuzzCommandFlakyAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes a test")
	}
	dir, _ := filepath.Abs("testdata/flakyalone")
	stdout, stderr, code := runGoweave(t, dir, "fuzz", "-json", "-race=false", "-p", "2", "-time", "6s", "-o", t.TempDir(), ".")
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if code != 1 || len(rep.Findings) != 1 || rep.Findings[0].Kind != "flaky-failure" ||
		!strings.Contains(rep.Findings[0].Message, "want worker 1") {
		t.Fatalf("exit %d, findings %+v; want 1 and a flaky-failure\n%s", code, rep.Findings, stderr)
	}
	for _, tr := range rep.Tests {
		if tr.Serial != "" {
			t.Errorf("%s ended serial: %s", tr.Test, tr.Serial)
		}
	}
}

// removeStateFile removes what a killed process of testdata/sharedfile may leave.
func removeStateFile(dir string) { _ = os.Remove(filepath.Join(dir, "state.db")) }
