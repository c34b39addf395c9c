package analysis

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/goweave/goweave/analysis/trace"
)

// A select whose chosen case is a send on a closed channel panics inside the select: the
// runtime records the Select closed and not successful, the chosen case in a. It is a send
// on a closed channel like a plain one (send-on-closed), found at the case's clause, where
// the user reads the send, rather than at the select keyword the runtime records.

// selectSendClosed notes event i, a Select, as a send on a closed channel when it is one.
func (e *engine) selectSendClosed(i int32, ev *trace.Event) bool {
	if ev.Flags.Has(trace.FlagSuccess) || !ev.Flags.Has(trace.FlagClosed) || ev.A >= uint64(len(ev.Cases)) || !ev.Cases[ev.A].Send {
		return false
	}
	if x, ok := e.chanIndex(ev.Cases[ev.A].Obj); ok {
		e.f.sendOnClosed = append(e.f.sendOnClosed, evPair{i, e.chans[x].closeEv})
	}
	return true
}

// sendSite names the send of event i for a message: its channel and where it is. For a
// select's send case, clause is the case's position (nil for a plain send, or when the
// source has no such select any more).
func (r *Result) sendSite(i int32) (ch, at string, clause *Position) {
	ev := &r.Trace.Events[i]
	if ev.Kind != trace.KindSelect || ev.A >= uint64(len(ev.Cases)) {
		return r.operand(i, "the channel"), r.at(i), nil
	}
	name, clause := r.selectCase(i, int(ev.A))
	if clause == nil {
		return "the channel", fmt.Sprintf("%s (%s)", r.at(i), name), nil
	}
	ch = "the channel"
	if m := sendRe.FindStringSubmatch(sourceLine(clause.File, clause.Line)); m != nil {
		ch = m[1]
	}
	number, _, _ := strings.Cut(name, " (") // "case 2", the clause's text being on its line
	return ch, fmt.Sprintf("%s:%d (%s of the select at line %d)", filepath.Base(clause.File), clause.Line, number, r.Trace.Position(ev.Pos).Line), clause
}

// atClause moves f's first position, the send, to the select case's clause (see
// sendSite). The fingerprint stays the select's: it does not depend on whether the source
// could be read.
func (r *Result) atClause(f *Finding, clause *Position) {
	if clause == nil || f.Kind == "" || len(f.Positions) == 0 {
		return
	}
	f.Positions[0].Line, f.Positions[0].Column = clause.Line, clause.Column
}
