package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/fuzzer"
)

// A test that fails because a select took one of two ready cases at random names that
// select, with the case it took when the test failed and the one it took when it passed,
// and its replay takes the failing case again; a test that fails by the order of two
// goroutines names no select, though one of its selects also chooses at random.
func TestFuzzCommandNamesSelectCause(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes two tests and replays one")
	}
	dir, _ := filepath.Abs("testdata/selectcause")
	out := t.TempDir()
	stdout, stderr, code := runGoweave(t, dir, "fuzz", "-json", "-race=false", "-o", out, "-time", "10s", "./...")
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, stderr)
	}
	var canceled *fuzzer.Finding
	for i, f := range rep.Findings {
		if f.Kind != "flaky-failure" {
			continue
		}
		switch f.Test {
		case "TestCanceledGet":
			canceled = &rep.Findings[i]
		case "TestFirstWriter":
			if strings.Contains(f.Message, "select") {
				t.Errorf("TestFirstWriter's failure names a select: %s", f.Message)
			}
		}
	}
	if canceled == nil {
		t.Fatalf("no flaky-failure of TestCanceledGet: %+v\n%s", rep.Findings, stderr)
	}
	if want := "cause: the select at pool.go:22 took case 1 (`<-p.slots`, line 23) while case 2 (`<-ctx.Done()`, line 25) was ready too in all "; !strings.Contains(canceled.Message, want) {
		t.Errorf("message %q, want it to contain %q", canceled.Message, want)
	}
	roles := map[int]string{}
	for _, p := range canceled.Positions {
		if filepath.Base(p.File) == "pool.go" {
			roles[p.Line] = p.Role
		}
	}
	if !strings.HasPrefix(roles[22], "cause: ") || roles[23] != "case taken when the test failed" || !strings.HasSuffix(roles[25], "taken when it passed") {
		t.Errorf("positions in pool.go %v, want the select (22) and its cases (23, 25)", roles)
	}
	reproduced := 0
	for range 5 {
		if _, _, code := runGoweave(t, dir, "replay", "-runs", "1", "-o", out, canceled.ID); code == 1 {
			reproduced++
		}
	}
	if reproduced < 5 {
		t.Errorf("the replay reproduced the failure in %d of 5 attempts, want 5", reproduced)
	}
}
