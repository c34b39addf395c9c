package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/fuzzer"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// testdata/selectorder's selects list a receive before a send, which the runtime sees in the
// other order: the finding, the fuzzer's notes and the replay name the cases as written.
func TestSelectCasesNamedAsWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes and replays a test program")
	}
	src := t.TempDir()
	copyDir(t, "testdata/selectorder", src)
	out := t.TempDir()
	stdout, stderr, code := runGoweave(t, src, "fuzz", "-json", "-v", "-strategy", "gfuzz", "-runs", "4", "-p", "1", "-o", out, "./...")
	if code != 1 {
		t.Fatalf("fuzz exit %d, want 1 (a finding)\n%s", code, stderr)
	}
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	var f *fuzzer.Finding
	for i := range rep.Findings {
		if rep.Findings[i].Kind == "select-case-without-partner" {
			f = &rep.Findings[i]
		}
	}
	if f == nil {
		t.Fatalf("no select-case-without-partner; findings %+v", rep.Findings)
	}
	if want := "case 1 (`<-p.quit`, line 23) of the select at pump.go:22, a receive from the channel made at pump.go:15,"; !strings.HasPrefix(f.Message, want) {
		t.Errorf("message %q, want it to start %q", f.Message, want)
	}
	clause := false
	for _, p := range f.Positions {
		clause = clause || p.Role == "case" && p.File == filepath.Join(src, "pump.go") && p.Line == 23 && p.Column == 3
	}
	if !clause {
		t.Errorf("positions %+v lack the clause pump.go:23:3 (role case)", f.Positions)
	}
	// GFuzz flips poll's select; its -v line names both cases as written (which one it
	// prefers depends on the recorded run).
	flip := false
	for _, l := range strings.Split(stderr, "\n") {
		if i := strings.Index(l, "select pump.go:33 execution 1: "); i >= 0 {
			l = l[i:]
			flip = strings.Contains(l, " instead of ") &&
				(strings.Contains(l, "case 1 (`<-in`, line 34)") || strings.Contains(l, "case 2 (`out <- v`, line 36)"))
			break
		}
	}
	if !flip {
		t.Errorf("no gfuzz note naming poll's cases as written in\n%s", stderr)
	}

	// The replay says which case its schedule steers the select to, as written; the schedule
	// itself keeps the runtime's numbering (the send is its case 0).
	rec, err := fuzzer.LoadRecipe(f.Recipe)
	if err != nil {
		t.Fatal(err)
	}
	s, err := schedule.Unmarshal([]byte(rec.Schedule))
	if err != nil || len(s.Selects) != 1 || s.Selects[0].Cases[0] != 0 {
		t.Fatalf("recipe schedule %q: %v", rec.Schedule, err)
	}
	stdout, stderr, code = runGoweave(t, src, "replay", "-o", out, f.ID)
	if code != 1 {
		t.Fatalf("replay exit %d, want 1 (the bug happened)\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"select pump.go:22 prefers case 2 (`p.out <- v`, line 25) in executions 1-3", "reproduced in 1 run(s)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("replay output lacks %q:\n%s", want, stdout)
		}
	}

	// Clauses swapped since the recording: the replay is refused, naming them.
	file := filepath.Join(src, "pump.go")
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	swapped := strings.Replace(string(text), "\t\tcase <-p.quit:\n\t\t\treturn\n\t\tcase p.out <- v:\n", "\t\tcase p.out <- v:\n\t\tcase <-p.quit:\n\t\t\treturn\n", 1)
	if swapped == string(text) {
		t.Fatal("test program changed: no clauses to swap")
	}
	os.WriteFile(file, []byte(swapped), 0o644)
	_, stderr, code = runGoweave(t, src, "replay", "-o", out, f.ID)
	if code != 2 || !strings.Contains(stderr, "pump.go:23") || !strings.Contains(stderr, "no longer read as recorded") {
		t.Errorf("replay of swapped clauses: exit %d, stderr %s", code, stderr)
	}
}
