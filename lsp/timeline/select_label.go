package timeline

import (
	"fmt"

	"github.com/goweave/goweave/analysis/selectcase"
	"github.com/goweave/goweave/analysis/trace"
)

// selectTaken names what a completed select took, for its label: the case as the user
// wrote it (read from the source by package analysis/selectcase; the trace numbers cases
// send first), "default", or, when the source cannot say, the runtime's number marked as
// such; detail, for the hover, adds the clause's text and line. "" for a select that did
// not complete.
func selectTaken(tr *trace.Trace, e *trace.Event) (label, detail string) {
	if !e.Completed() {
		return "", ""
	}
	if !e.Flags.Has(trace.FlagSuccess) || e.A >= uint64(len(e.Cases)) {
		return "default", ""
	}
	k := int(e.A)
	sends := make([]bool, len(e.Cases))
	for i, c := range e.Cases {
		sends[i] = c.Send
	}
	p := tr.Position(e.Pos)
	s, err := selectcase.Find(p.File, p.Line, sends)
	if err != nil {
		return fmt.Sprintf("runtime case %d", k+1), fmt.Sprintf("case %d in the runtime's order, send cases first (%v)", k+1, err)
	}
	c, _ := s.Source(k)
	return fmt.Sprintf("case %d", c.Index+1), s.Name(k)
}
