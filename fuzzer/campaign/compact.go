package campaign

import (
	"sort"
	"strings"
)

// Compact storage of the queued schedules in a saved state. The schedules a strategy
// proposes from one run share most of their lines: each replays a prefix of that run (the
// same `op` lines) and changes what follows. A saved queue therefore keeps a few schedules
// whole (bases) and every other one as edits of a base: runs of the base's lines to copy,
// and the lines of its own in between.

// lineEdit is one step of rebuilding a schedule from a base: copy N lines of the base from
// line From (0-based), or, when N is 0, insert Text (whole lines, each ending in "\n").
type lineEdit struct {
	From int    `json:"from,omitempty"`
	N    int    `json:"n,omitempty"`
	Text string `json:"text,omitempty"`
}

// compactBases bounds the bases a schedule is compared with (the most recent ones).
const compactBases = 4

// compactor encodes the schedules of one queue against the bases it keeps.
type compactor struct {
	bases []string
	lines [][]string         // the lines of each base
	index []map[string][]int // per base: line -> where it occurs
}

// add returns how to store recipe: as edits of a base (1-based index), or, when no base
// shares at least half of it, as a new base (its own index, no edits).
func (c *compactor) add(recipe string) (base int, edits []lineEdit) {
	lines := splitLines(recipe)
	best, bestSize := -1, len(recipe)/2
	for b := len(c.bases) - 1; b >= 0 && b >= len(c.bases)-compactBases; b-- {
		e := c.diff(b, lines)
		if size := editsSize(e); size < bestSize {
			best, bestSize, edits = b, size, e
		}
	}
	if best >= 0 {
		return best + 1, edits
	}
	index := map[string][]int{}
	for i, l := range lines {
		index[l] = append(index[l], i)
	}
	c.bases, c.lines, c.index = append(c.bases, recipe), append(c.lines, lines), append(c.index, index)
	return len(c.bases), nil
}

// diff encodes lines as copies from base b and inserted text: each line continues the
// current copy when the base's next line matches, else starts a copy at the first
// occurrence of the line in the base after the previous copy (or anywhere), else is
// inserted.
func (c *compactor) diff(b int, lines []string) []lineEdit {
	base, index := c.lines[b], c.index[b]
	var out []lineEdit
	var text strings.Builder // the inserted lines since the last copy (appending to a string was quadratic: a 777 KB schedule took minutes)
	flush := func() {
		if text.Len() > 0 {
			out = append(out, lineEdit{Text: text.String()})
			text.Reset()
		}
	}
	next := -1 // base line the current copy continues with
	for _, l := range lines {
		if next >= 0 && next < len(base) && base[next] == l {
			out[len(out)-1].N++
			next++
			continue
		}
		if at, ok := firstAfter(index[l], next); ok {
			flush()
			out = append(out, lineEdit{From: at, N: 1})
			next = at + 1
			continue
		}
		text.WriteString(l)
		next = -1
	}
	flush()
	return out
}

// firstAfter returns the first of the increasing positions after pos, or the first at all.
func firstAfter(positions []int, pos int) (int, bool) {
	if len(positions) == 0 {
		return 0, false
	}
	if i := sort.SearchInts(positions, pos+1); i < len(positions) {
		return positions[i], true
	}
	return positions[0], true
}

// editsSize approximates the saved size of edits.
func editsSize(edits []lineEdit) int {
	n := 0
	for _, e := range edits {
		n += 24 + len(e.Text)
	}
	return n
}

// expand rebuilds a schedule from its base and edits; false if the edits do not fit the
// base (a damaged state).
func expand(base string, edits []lineEdit) (string, bool) {
	lines := splitLines(base)
	var b strings.Builder
	for _, e := range edits {
		if e.N == 0 {
			b.WriteString(e.Text)
			continue
		}
		if e.From < 0 || e.N < 0 || e.From+e.N > len(lines) {
			return "", false
		}
		for _, l := range lines[e.From : e.From+e.N] {
			b.WriteString(l)
		}
	}
	return b.String(), true
}

// splitLines splits s after each "\n", keeping it.
func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
