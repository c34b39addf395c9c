package mutate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
)

// withSource points the positions of r at a file whose line 40 is a select that receives
// from x before it sends on a (the runtime sees the send as case 0, the receive as case 1),
// and makes the recorded select's first case that send (and the operation that blocked on a
// a receive, its possible partner).
func withSource(t *testing.T, r *Run) string {
	t.Helper()
	src := "package p\n" + strings.Repeat("\n", 37) + "func f(a, x chan int) {\n" +
		"\tselect {\n" + // line 40
		"\tcase v := <-x:\n" +
		"\t\t_ = v\n" +
		"\tcase a <- 1:\n" + // line 43
		"\t}\n}\n"
	file := filepath.Join(t.TempDir(), "p.go")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range r.Trace.Positions {
		if r.Trace.Positions[i].File == testFile {
			r.Trace.Positions[i].File = file
		}
	}
	for i := range r.Trace.Events {
		switch e := &r.Trace.Events[i]; {
		case e.Kind == trace.KindSelect:
			e.Cases[0].Send = true
		case e.Kind == trace.KindChanSend && !e.Completed():
			e.Kind = trace.KindChanRecv
		}
	}
	return file
}

func TestGFuzzNoteNamesSourceCases(t *testing.T) {
	r := gfuzzRun(5)
	withSource(t, r)
	muts := NewGFuzz(7).Next(r)
	if len(muts) != 1 {
		t.Fatalf("%d mutations, want 1", len(muts))
	}
	// the schedule keeps the runtime's numbering; the note names the clauses as written
	if got := muts[0].Schedule.Selects[0].Cases; len(got) != 1 || got[0] != 0 {
		t.Errorf("preferred cases %v, want [0] (the runtime's send case)", got)
	}
	want := "select p.go:40 execution 1: case 2 (`a <- 1`, line 43) instead of case 1 (`v := <-x`, line 41)"
	if muts[0].Note != want {
		t.Errorf("note %q, want %q", muts[0].Note, want)
	}
}

func TestPrefixNoteNamesSourceCases(t *testing.T) {
	r := gfuzzRun(5)
	withSource(t, r)
	r.Prepare()
	lin := linear(r)
	sel := -1
	for _, i := range lin {
		if r.Trace.Events[i].Kind == trace.KindSelect {
			sel = i
		}
	}
	got := SelectDecisions(r, lin, sel)
	if len(got) != 1 {
		t.Fatalf("select decisions %+v", got)
	}
	want := fmt.Sprintf("replay %d operations, then 1 Select p.go:40#1 takes case 2 (`a <- 1`, line 43) instead of case 1 (`v := <-x`, line 41)", got[0].Prefix)
	if n := decisionNote(r, lin, got[0]); n != want {
		t.Errorf("note %q, want %q", n, want)
	}
}
