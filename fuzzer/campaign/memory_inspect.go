package campaign

import (
	"os"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace"
)

// What inspecting a run holds beside its analysis comes and goes with the trace: the
// decoded events before the analysis, the schedule signature after it (its execution
// graph and operation names: 0.72 GB for one 3.4M-event run of xtaci/smux, at the heap's
// peak). Reserving the whole inspection from the analyses' pool, not the analysis
// alone, keeps -p inspections of large runs from holding all of that at once.

// signatureBytesPerEvent is what the signature of a run holds per event (measured: 0.72
// GB for 3.4M events).
const signatureBytesPerEvent = 220

// reserveInspect reserves from the process's analysis pool what inspecting the trace at
// path will hold about (decoded events, analysis, signature; at most the budget of o) and
// returns its release; the analysis is then run with o.Reserved. Nothing when the size is
// unknown.
func reserveInspect(path string, o analysis.Options) (release func()) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return func() {}
	}
	events := fi.Size() / trace.RecordSize
	return analysis.Reserve(events*(analysis.BytesPerEvent+signatureBytesPerEvent), o)
}
