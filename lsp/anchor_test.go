package lsp

import (
	"strings"
	"testing"
)

const anchorSource = `package p

import "sync"

func f(c chan int, mu *sync.Mutex, wg *sync.WaitGroup, once *sync.Once, d chan int) {
	c <- 1
	v := <-c
	close(c)
	select {
	case d <- v:
	}
	mu.Lock()
	wg.Done()
	once.Do(func() { close(d) })
	for range c {
	}
	go func() { c <- <-d }()
	x := 1 // nothing here
	_ = x
	s := "é" ; c <- 2
}
`

// TestAnchorRanges: a position's range is the exact operation, picked by the role and
// kind when a line holds several, else by the column.
func TestAnchorRanges(t *testing.T) {
	ops := parseOps("p.go", anchorSource)
	for _, tc := range []struct {
		line         string
		column       int
		role, kind   string
		want         string
		wantStartCol int // 0: not checked
	}{
		{"c <- 1", 0, "send", "send-on-closed", "<-", 0},
		{"v := <-c", 0, "receive", "recv-on-closed", "<-", 0},
		{"close(c)", 0, "close", "close-of-closed", "close(", 0},
		{"select {", 0, "", "leak-select", "select", 0},
		{"case d <- v", 0, "send", "", "<-", 0},
		{"case d <- v", 2, "case", "select-case-without-partner", "<-", 0}, // a select case's clause: its communication
		{"mu.Lock()", 0, "held lock", "cyclic-deadlock", ".Lock()", 0},
		{"wg.Done()", 0, "done", "negative-waitgroup", ".Done()", 0},
		{"once.Do(", 0, "", "close-of-closed", "close(", 0},
		{"once.Do(", 0, "once", "", ".Do(", 0},
		{"for range c", 0, "receive", "", "for", 0},
		{"go func() { c <- <-d }", 0, "receive", "", "<-", 18},
		{"go func() { c <- <-d }", 0, "send", "", "<-", 15},
		{"go func() { c <- <-d }", 0, "spawn", "", "go", 0},
		{"go func() { c <- <-d }", 19, "", "", "<-", 18}, // column is 1-based bytes
		{"x := 1", 0, "send", "", "x := 1 // nothing here", 0},
		{`s := "é"`, 0, "send", "", "<-", 0},
	} {
		line := lineOf(t, anchorSource, tc.line)
		rng, ok := ops.rangeAt(line, tc.column, tc.role, tc.kind)
		if !ok {
			t.Errorf("%s: no range", tc.line)
			continue
		}
		_, text, _ := lineAt(anchorSource, line)
		// Ranges are in UTF-16 units; convert back for the check.
		got := utf16Slice(text, int(rng.Start.Character), int(rng.End.Character))
		if got != tc.want || int(rng.Start.Line) != line-1 {
			t.Errorf("%s (%s/%s): range %v covers %q on line %d, want %q on line %d", tc.line, tc.role, tc.kind, rng, got, rng.Start.Line+1, tc.want, line)
		}
		if tc.wantStartCol > 0 && int(rng.Start.Character) != tc.wantStartCol {
			t.Errorf("%s (%s): starts at %d, want %d", tc.line, tc.role, rng.Start.Character, tc.wantStartCol)
		}
	}
	if _, ok := ops.rangeAt(999, 0, "", ""); ok {
		t.Errorf("a line past the end has a range")
	}
	// A file that does not parse falls back to the line.
	broken := parseOps("b.go", "package p\nfunc {\n\t\tc <- 1   \n")
	rng, ok := broken.rangeAt(3, 0, "send", "")
	if !ok || rng.Start.Character != 2 || rng.End.Character != 8 {
		t.Errorf("broken file: %v, %v; want the trimmed line", rng, ok)
	}
}

// utf16Slice cuts s between two UTF-16 offsets.
func utf16Slice(s string, from, to int) string {
	var b strings.Builder
	units := 0
	for _, r := range s {
		if units >= from && units < to {
			b.WriteRune(r)
		}
		units += utf16Len(r)
	}
	return b.String()
}
