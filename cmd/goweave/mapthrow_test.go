package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/fuzzer"
)

// testdata/mapthrow, without the race detector: every run ends in the runtime's "fatal
// error: concurrent map writes", a crash. The campaign reports it as a data race at one of
// the writes (exit 1), not "0 bugs" with exit 0 (main at 320a3ad).
func TestFuzzCommandConcurrentMapWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes a package")
	}
	dir, _ := filepath.Abs("testdata/mapthrow")
	stdout, stderr, code := runGoweave(t, dir, "fuzz", "-json", "-race=false", "-runs", "3", "-o", t.TempDir(), ".")
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if code != 1 {
		t.Errorf("exit %d, want 1\n%s", code, stderr)
	}
	found := false
	for _, f := range rep.Findings {
		line := f.Positions[0].Line
		if f.Kind == "data-race" && strings.Contains(f.Message, "fatal error: concurrent map writes") && filepath.Base(f.Positions[0].File) == "fill.go" && (line == 11 || line == 16) {
			found = true
		}
	}
	if !found {
		t.Errorf("no data-race at a write of fill.go (line 11 or 16); findings %+v", rep.Findings)
	}
}
