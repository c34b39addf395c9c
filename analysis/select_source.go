package analysis

import (
	"go/ast"
	"strings"
)

// The runtime numbers a select's cases sends first, then receives, each in source order
// (the compiler's scase layout; runtimepatch records that numbering and schedules use it).
// A message names the case the user wrote: SourceCase maps the recorded index back to the
// select statement's clauses, read from the source.

// SourceCase maps case k of the select recorded at file:line to its clause in the source:
// n is its 1-based number among the select's cases (default not counted), caseLine its
// line and text the clause's first line as written. ok is false when the source cannot be
// read or has no select there with as many cases as the recording (ncases).
func SourceCase(file string, line, k, ncases int) (n, caseLine int, text string, ok bool) {
	f, fset := parsedFile(file)
	if f == nil || k < 0 {
		return 0, 0, "", false
	}
	var sel *ast.SelectStmt
	ast.Inspect(f, func(x ast.Node) bool {
		if sel != nil {
			return false
		}
		if s, is := x.(*ast.SelectStmt); is && fset.Position(s.Pos()).Line == line {
			sel = s
			return false
		}
		return true
	})
	if sel == nil {
		return 0, 0, "", false
	}
	var sends, recvs []int // clause numbers, in source order
	var lines []int
	for _, st := range sel.Body.List {
		cc, is := st.(*ast.CommClause)
		if !is || cc.Comm == nil {
			continue // default
		}
		lines = append(lines, fset.Position(cc.Pos()).Line)
		if _, send := cc.Comm.(*ast.SendStmt); send {
			sends = append(sends, len(lines))
		} else {
			recvs = append(recvs, len(lines))
		}
	}
	if len(lines) != ncases || k >= ncases {
		return 0, 0, "", false
	}
	if k < len(sends) {
		n = sends[k]
	} else {
		n = recvs[k-len(sends)]
	}
	caseLine = lines[n-1]
	return n, caseLine, strings.TrimSpace(sourceLine(file, caseLine)), true
}
