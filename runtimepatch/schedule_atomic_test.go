package runtimepatch

import (
	"testing"

	"github.com/goweave/goweave/analysis/trace"
)

// An atomic operation is never held back by an order (FORMAT.md: only orderable kinds
// are): before, the test goroutine's atomic store, at a position the order does not name,
// ended the order as diverged ("the head names this goroutine, which is at another
// operation"), so no confirmation of a test that stores an atomic before its first ordered
// operation (ants' NewPool) could run.
func TestScheduleOrderPassesAtomics(t *testing.T) {
	m := markersIn(t, "replay")
	s := &schedText{window: 2000}
	s.op("1", trace.KindWgAdd, m["atomicorder.add"], 1)
	s.op("1.1", trace.KindWgDone, m["atomicorder.done"], 1)
	s.op("1", trace.KindWgWait, m["atomicorder.wait"], 1)
	r := runSchedule(t, "TestAtomicThenOrdered", s.String())
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.output)
	}
	if metaInt(r, "schedule.diverged") != 0 || metaInt(r, "schedule.admitted") != 3 {
		t.Errorf("META %v: want the 3 operations admitted, no divergence\n%s", r.tr.Meta, dump(r.tr))
	}
	oneM(t, r.tr, trace.KindAtomicStore, "atomicorder.store", m) // recorded, on the test goroutine, before the order's first operation
}
