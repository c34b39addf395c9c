package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/goweave/goweave/fuzzer"
)

// A rollback Store that clobbers a worker's clear (testdata/lostupdate) is a lost update at
// the Store, with the CompareAndSwap that saw the value and the worker's Store as related
// positions; the same rollback made with a CompareAndSwap, and a flag two goroutines set
// after each read it, are not.
func TestFuzzCommandFindsLostUpdate(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes three tests")
	}
	dir, _ := filepath.Abs("testdata/lostupdate")
	stdout, stderr, _ := runGoweave(t, dir, "fuzz", "-json", "-race=false", "-o", t.TempDir(), "-time", "10s", "./...")
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	failed := false
	for _, tr := range rep.Tests {
		if tr.Test == "TestQueueRollback" && tr.Statuses["fail"] > 0 {
			failed = true
		}
	}
	found := false
	for _, f := range rep.Findings {
		if f.Kind != "lost-update" {
			continue
		}
		if f.Test != "TestQueueRollback" {
			t.Errorf("a lost update in %s: %s", f.Test, f.Message)
			continue
		}
		found = true
		var at []string
		for _, p := range f.Positions {
			at = append(at, p.Role+"@"+filepath.Base(p.File)+":"+itoa(p.Line))
		}
		want := []string{"store@handoff.go:32", "saw the value@handoff.go:28", "lost write@handoff.go:56"}
		if len(at) != len(want) || at[0] != want[0] || at[1] != want[1] || at[2] != want[2] {
			t.Errorf("positions %v, want %v", at, want)
		}
	}
	// The test fails only when the worker's clear lands between the swap and the rollback:
	// that is the lost update, so a failing run must have shown it.
	if failed && !found {
		t.Errorf("TestQueueRollback failed, and no lost update was reported\n%s", stderr)
	}
}
