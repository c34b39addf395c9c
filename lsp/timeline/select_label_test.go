package timeline

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
)

// A select that receives before it sends, as written; the trace numbers the send 0.
func TestSelectLabelNamesCaseAsWritten(t *testing.T) {
	file := filepath.Join(t.TempDir(), "p.go")
	if err := os.WriteFile(file, []byte("package p\n\nfunc f(in, out chan int) {\n\tselect {\n\tcase <-in:\n\tcase out <- 1:\n\tdefault:\n\t}\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []trace.Case{{Index: 0, Obj: 7, Send: true}, {Index: 1, Obj: 8}}
	tr := &trace.Trace{Positions: []trace.Position{{File: file, Line: 4}}, Events: []trace.Event{
		{Kind: trace.KindSelect, Pos: 1, G: 1, Pre: 1, Post: 2, A: 0, Flags: trace.FlagSuccess | trace.FlagNonBlocking, Cases: cases},
		{Kind: trace.KindSelect, Pos: 1, G: 1, Pre: 3, Post: 4, A: 1, Flags: trace.FlagSuccess | trace.FlagNonBlocking, Cases: cases},
		{Kind: trace.KindSelect, Pos: 1, G: 1, Pre: 5, Post: 6, A: trace.SelectDefault, Flags: trace.FlagNonBlocking, Cases: cases},
	}}
	for i := range tr.Events {
		tr.Events[i].Index = i
	}
	tl := FromTrace(tr, []Mark{{File: file, Line: 4, Role: "select"}})
	want := [][2]string{{"select: case 2", "case 2 (`out <- 1`, line 6)"}, {"select: case 1", "case 1 (`<-in`, line 5)"}, {"select: default", ""}}
	if len(tl.Events) != len(want) {
		t.Fatalf("events %+v", tl.Events)
	}
	for i, w := range want {
		if tl.Events[i].Label != w[0] || tl.Events[i].Detail != w[1] {
			t.Errorf("event %d: label %q detail %q, want %q %q", i, tl.Events[i].Label, tl.Events[i].Detail, w[0], w[1])
		}
	}
	var page bytes.Buffer
	if err := Render(&page, tl); err != nil {
		t.Fatal(err)
	}
	if want := "<title>select: case 2 at p.go:4: case 2 (`out &lt;- 1`, line 6)</title>"; !strings.Contains(page.String(), want) {
		t.Errorf("page lacks %q", want)
	}
	// the source gone: the runtime's number, said so
	os.Remove(file)
	if e := FromTrace(tr, []Mark{{File: file, Line: 4}}).Events[0]; e.Label != "select: runtime case 1" || !strings.Contains(e.Detail, "p.go could not be read") {
		t.Errorf("without the source: %q, %q", e.Label, e.Detail)
	}
}
