package analysis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
)

// Each operation's column points at the token the editor anchors it on, also when the line
// holds another operation first.
func TestColumn(t *testing.T) {
	cases := []struct {
		kind trace.Kind
		line string
		at   string // the text the column starts
	}{
		{trace.KindChanSend, "\tresults <- <-in", "<- <-in"},
		{trace.KindChanRecv, "\tresults <- <-in", "<-in"},
		{trace.KindChanRecv, "\tv, ok := <-c.samples", "<-c.samples"},
		{trace.KindChanClose, "\tdefer close(c.done)", "close(c.done)"},
		{trace.KindLock, "\ts.Warehouse.mu.Lock()", ".Lock()"},
		{trace.KindUnlock, "\tdefer s.mu.Unlock()", ".Unlock()"},
		{trace.KindWgDone, "\t\tdefer wg.Done()", ".Done()"},
		{trace.KindWgWait, "\tgo func() { wg.Wait(); close(out) }()", ".Wait()"},
		{trace.KindCondWait, "\t\tc.cond.Wait()", ".Wait()"},
		{trace.KindOnceDo, "\tonce.Do(setup)", ".Do(setup)"},
		{trace.KindSelect, "\tselect {", "select {"},
		{trace.KindGoSpawn, "\tgo worker(ch)", "go worker(ch)"},
		{trace.KindChanRecv, "\tfor v := range jobs {", "for v := range jobs {"}, // no arrow: the line's start
	}
	var src strings.Builder
	src.WriteString("package p\n")
	for _, c := range cases {
		src.WriteString(c.line + "\n")
	}
	file := filepath.Join(t.TempDir(), "p.go")
	if err := os.WriteFile(file, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		col := column(c.kind, file, i+2)
		if col < 1 || col > len(c.line) || !strings.HasPrefix(c.line[col-1:], c.at) {
			t.Errorf("%s on %q: column %d, want the one of %q", c.kind, c.line, col, c.at)
		}
	}
	if col := LineColumn(file, 2); col != 2 {
		t.Errorf("LineColumn of %q = %d, want 2", cases[0].line, col)
	}
	if col := column(trace.KindChanSend, file, 1000); col != 0 {
		t.Errorf("a line past the end: column %d, want 0 (unknown)", col)
	}
}
