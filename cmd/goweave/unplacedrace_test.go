package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/fuzzer"
)

// testdata/unplacedrace: the test reads a counter that its dependency's own goroutine
// (testdata/racedep) writes with no lock. The race detector fails every run, but the writing
// side has no frame of the module, so no race finding placed it: main at 320a3ad reported
// "0 bugs" with exit 0. The failure must not be silent: a data-race naming the report's
// accesses, at the module's call into the dependency.
func TestFuzzCommandRaceOutsideTheModule(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes a package with the race detector")
	}
	dir, _ := filepath.Abs("testdata/unplacedrace")
	stdout, stderr, code := runGoweave(t, dir, "fuzz", "-json", "-runs", "5", "-o", t.TempDir(), ".")
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if code != 1 {
		t.Errorf("exit %d, want 1\n%s", code, stderr)
	}
	var found bool
	for _, f := range rep.Findings {
		if f.Kind == "data-race" && strings.Contains(f.Message, "racedep.(*Meter).loop at meter.go:") &&
			filepath.Base(f.Positions[0].File) == "busy.go" && f.Positions[0].Line == 9 {
			found = true
		}
	}
	if !found {
		t.Errorf("no data-race naming the dependency's write, at busy.go:9; findings %+v", rep.Findings)
	}
}
