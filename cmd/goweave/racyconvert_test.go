package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/goweave/goweave/fuzzer"
)

// testdata/racyconvert: the test reads a struct that a goroutine writes under a lock, as an
// interface argument (sony/gobreaker's assert.Equal(t, Counts{...}, cb.counts), survey 9).
// The race detector's report of the read starts in runtime.convTnoptr, which copies the struct
// for the caller; the race is the test's line. Every run fails under -race, so the campaign
// must report the data race (or at least the failure), never "0 bugs; 20 fail" with exit 0
// (main at 0fcfb20: exactly that).
func TestFuzzCommandRaceInRuntimeCopy(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes a package with the race detector")
	}
	dir, _ := filepath.Abs("testdata/racyconvert")
	stdout, stderr, code := runGoweave(t, dir, "fuzz", "-json", "-runs", "20", "-o", t.TempDir(), ".")
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if code != 1 {
		t.Errorf("exit %d, want 1\n%s", code, stderr)
	}
	found := false
	for _, f := range rep.Findings {
		for _, p := range f.Positions {
			if f.Kind == "data-race" && filepath.Base(p.File) == "racyconvert_test.go" && p.Line == 46 {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("no data-race at racyconvert_test.go:46 (the read); findings %+v", rep.Findings)
	}
}
