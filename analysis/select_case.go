package analysis

import (
	"github.com/goweave/goweave/analysis/selectcase"
	"github.com/goweave/goweave/analysis/trace"
)

// The trace numbers a select's cases as the runtime sees them, send cases first; findings
// name them as the user wrote them, read from the source (package selectcase), with the
// clause as a related position. A source that cannot be read, or no longer has the recorded
// select, leaves the runtime's numbering, and the message says so.

// selectCase names case k (the trace's numbering; -1 the default) of the select executed
// as event sel, and gives the clause's position when the source has it.
func (r *Result) selectCase(sel int32, k int) (string, *Position) {
	ev := &r.Trace.Events[sel]
	p := r.Trace.Position(ev.Pos)
	sends := CaseDirections(ev)
	s, err := selectcase.Find(p.File, p.Line, sends)
	if err != nil {
		return selectcase.Name(p.File, p.Line, sends, k), nil
	}
	c, ok := s.Source(k)
	if !ok {
		return s.Name(k), nil
	}
	return s.Name(k), &Position{Role: "case", File: p.File, Line: c.Line, Column: c.Column}
}

// CaseDirections lists the directions (true = send) of the cases of the Select event ev, in
// the trace's order: what selectcase.Find pairs with the source.
func CaseDirections(ev *trace.Event) []bool {
	sends := make([]bool, len(ev.Cases))
	for i, c := range ev.Cases {
		sends[i] = c.Send
	}
	return sends
}

// caseFailsTest reports whether the source clause of case k of the Select event sel fails
// the test when taken (selectcase.Case.FailsTest): false when the source cannot be matched.
func (r *Result) caseFailsTest(sel int32, k int) bool {
	ev := &r.Trace.Events[sel]
	p := r.Trace.Position(ev.Pos)
	s, err := selectcase.Find(p.File, p.Line, CaseDirections(ev))
	if err != nil {
		return false
	}
	c, ok := s.Source(k)
	return ok && c.FailsTest
}
