package runtimepatch

import (
	"testing"

	"github.com/goweave/goweave/analysis/trace"
)

// A library's channel operations on behalf of a user call (a context's make of its Done
// channel inside Done, its close inside cancel: recorded internal at the user's line) are
// neither counted as occurrences nor held by an order (FORMAT.md). Before, the make made
// the goroutine's receive at the same line occurrence 2, so the order's first op never
// matched, and the close, reached by the head's goroutine between two of its ordered
// operations, ended the order as diverged.
func TestScheduleOrderPassesLibraryOperations(t *testing.T) {
	m := markersIn(t, "replay")
	s := &schedText{window: 2000}
	s.op("1.1", trace.KindChanRecv, m["libclose.wait"], 1)
	s.op("1", trace.KindLock, m["libclose.lock"], 1)
	s.op("1", trace.KindUnlock, m["libclose.unlock"], 1)
	s.op("1.1", trace.KindChanSend, m["libclose.send"], 1)
	s.op("1", trace.KindChanRecv, m["libclose.recv"], 1)
	r := runSchedule(t, "TestLibraryClose", s.String())
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.output)
	}
	if metaInt(r, "schedule.diverged") != 0 || metaInt(r, "schedule.admitted") != 5 {
		t.Errorf("META %v: want the 5 operations admitted, no divergence\n%s", r.tr.Meta, dump(r.tr))
	}
	close := oneM(t, r.tr, trace.KindChanClose, "libclose.cancel", m)
	if !close.Flags.Has(trace.FlagInternal) {
		t.Errorf("the cancel's close is not the library's (flags %s)", close.Flags)
	}
}
