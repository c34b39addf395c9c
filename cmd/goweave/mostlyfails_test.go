package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/goweave/goweave/fuzzer"
)

// A test whose failure depends on the schedule is flaky even when a campaign's first eight
// runs all failed (testdata/mostlyfails makes that bad luck certain; later runs fail in half):
// a flaky-failure, exit 1, and no error. Before the plain check ran it until a pass, such a
// campaign called it broken: "fails under plain go test too ... not fuzzed further", exit 2.
// Now 32 plain runs must fail as well (2^-32 here).
func TestFuzzCommandMostlyFailingIsFlaky(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes a test")
	}
	dir, _ := filepath.Abs("testdata/mostlyfails")
	t.Setenv("MOSTLYFAILS_DIR", t.TempDir())
	stdout, stderr, code := runGoweave(t, dir, "fuzz", "-json", "-race=false", "-strategy", "record", "-runs", "60", "-o", t.TempDir(), "./...")
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if code != 1 || len(rep.Errors) != 0 || len(rep.Findings) != 1 || rep.Findings[0].Kind != "flaky-failure" {
		t.Fatalf("exit %d, errors %q, findings %+v; want 1, no error and a flaky-failure\n%s", code, rep.Errors, rep.Findings, stderr)
	}
}
