package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/goweave/goweave/fuzzer"
)

// A rollback Store that clobbers a worker's clear (testdata/lostupdate), in an atomic.Pointer
// or an atomic.Value, is a lost update at the Store, with the CompareAndSwap that saw the value and the worker's Store as related
// positions; the same rollback made with a CompareAndSwap, and a flag two goroutines set
// after each read it, are not.
func TestFuzzCommandFindsLostUpdate(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes four tests")
	}
	dir, _ := filepath.Abs("testdata/lostupdate")
	stdout, stderr, _ := runGoweave(t, dir, "fuzz", "-json", "-race=false", "-o", t.TempDir(), "-time", "10s", "./...")
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	want := map[string][]string{ // the Store, the CompareAndSwap that saw the value, the clear
		"TestQueueRollback": {"store@handoff.go:32", "saw the value@handoff.go:28", "lost write@handoff.go:56"},
		"TestValueRollback": {"store@handoff.go:89", "saw the value@handoff.go:85", "lost write@handoff.go:95"},
	}
	found := map[string]bool{}
	for _, f := range rep.Findings {
		if f.Kind != "lost-update" {
			continue
		}
		w, ok := want[f.Test]
		if !ok {
			t.Errorf("a lost update in %s: %s", f.Test, f.Message)
			continue
		}
		found[f.Test] = true
		var at []string
		for _, p := range f.Positions {
			at = append(at, p.Role+"@"+filepath.Base(p.File)+":"+itoa(p.Line))
		}
		if len(at) < len(w) || at[0] != w[0] || at[1] != w[1] || at[2] != w[2] {
			t.Errorf("%s: positions %v, want %v", f.Test, at, w)
		}
	}
	// A test fails only when the worker's clear lands between the swap and the rollback:
	// that is the lost update, so a failing run must have shown it.
	for _, tr := range rep.Tests {
		if _, ok := want[tr.Test]; ok && tr.Statuses["fail"] > 0 && !found[tr.Test] {
			t.Errorf("%s failed in %d runs, and no lost update was reported\n%s", tr.Test, tr.Statuses["fail"], stderr)
		}
	}
}
