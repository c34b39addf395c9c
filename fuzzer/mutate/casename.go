package mutate

import (
	"fmt"

	"github.com/goweave/goweave/analysis/selectcase"
	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// Schedules number a select's cases as the runtime does, send cases first (FORMAT.md);
// notes name them as the user wrote them, read from the source by package
// analysis/selectcase, so that "-v" lines and a recipe's confirmation notes point at the
// clause. When the source cannot say (unreadable, changed), the runtime's number, 1-based
// like every case a person reads, and labelled as such.

// caseNote names case c (a schedule case: index, CaseDefault or CaseFree) of the select
// at pos whose cases, in the runtime's order, have directions sends (true = send).
func caseNote(pos schedule.Pos, sends []bool, c int) string {
	switch c {
	case schedule.CaseDefault:
		return "default"
	case schedule.CaseFree:
		return "none"
	}
	s, err := selectcase.Find(pos.File, pos.Line, sends)
	if err != nil {
		return fmt.Sprintf("case %d in the runtime's order", c+1)
	}
	return s.Name(c)
}

// caseDirections lists the directions (true = send) of a Select event's cases.
func caseDirections(e *trace.Event) []bool {
	sends := make([]bool, len(e.Cases))
	for i, c := range e.Cases {
		sends[i] = c.Send
	}
	return sends
}
