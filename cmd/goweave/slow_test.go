package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goweave/goweave/fuzzer"
)

// A test that keeps working past its time limit (testdata/slow: four seconds of a worker
// pool, -timeout 2s) is slow, not hung: it runs to its end and passes, no hang is reported
// (exit 0), and one warning names the test and -timeout. The test's line and the total
// count the same runs.
func TestFuzzCommandSlowIsNotHung(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a test past its time limit")
	}
	dir, _ := filepath.Abs("testdata/slow")
	stdout, stderr, code := runGoweave(t, dir, "fuzz", "-json", "-race=false", "-o", t.TempDir(), "-runs", "1", "-timeout", "2s", "./...")
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if code != 0 || len(rep.Findings) != 0 || len(rep.Tests) != 1 {
		t.Fatalf("exit %d, findings %+v, tests %+v; want 0, none, one test\n%s", code, rep.Findings, rep.Tests, stderr)
	}
	if tr := rep.Tests[0]; tr.Statuses["pass"] != 1 || tr.Slow != 1 || tr.Analyzed != 1 {
		t.Errorf("%+v: want one slow run that passed, analyzed", tr)
	}
	var slow []string
	for _, w := range rep.Warnings {
		if strings.Contains(w, "slow") {
			slow = append(slow, w)
		}
	}
	if len(slow) != 1 || !strings.Contains(slow[0], "slow.TestWorkerPool: slow, not hung") || !strings.Contains(slow[0], "-timeout") {
		t.Errorf("warnings %q: want one that names the test and -timeout", rep.Warnings)
	}
	if !strings.Contains(stderr, "goweave fuzz: warning: slow.TestWorkerPool: slow, not hung") {
		t.Errorf("the warning is not in the text output:\n%s", stderr)
	}
	testLine := regexp.MustCompile(`goweave: slow\.TestWorkerPool: (\d+) runs? in`).FindStringSubmatch(stderr)
	total := regexp.MustCompile(`goweave: 1 tests, (\d+) runs?,`).FindStringSubmatch(stderr)
	if testLine == nil || total == nil || testLine[1] != total[1] || total[1] != "1" {
		t.Errorf("run counts of the test %q and of the campaign %q differ or are not 1:\n%s", testLine, total, stderr)
	}
}
