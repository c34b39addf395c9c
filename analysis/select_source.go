package analysis

import (
	"strings"

	"github.com/goweave/goweave/analysis/selectcase"
)

// SourceCase maps case k of the select recorded at file:line (the runtime's numbering:
// sends first, then receives, each in source order) to its clause in the source: n is its
// 1-based number among the select's cases (default not counted), caseLine its line and
// text the clause's first line as written. ok is false when the source cannot be read or
// has no select there with as many cases as the recording (ncases). Package
// analysis/selectcase does the mapping; Result.selectCase names cases in messages.
func SourceCase(file string, line, k, ncases int) (n, caseLine int, text string, ok bool) {
	s, err := selectcase.FindCount(file, line, ncases)
	if err != nil {
		return 0, 0, "", false
	}
	c, found := s.Source(k)
	if !found {
		return 0, 0, "", false
	}
	return c.Index + 1, c.Line, strings.TrimSpace(sourceLine(file, c.Line)), true
}
