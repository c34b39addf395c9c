package runtimepatch

import (
	"fmt"
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

// An order that names an atomic holds atomics back like the orderable kinds, and a Load held
// after it read reads again once admitted: ordered after the other goroutine's Store it sees
// the stored value in every run, ordered before it the old one.
func TestScheduleOrderPinsAtomics(t *testing.T) {
	m := markersIn(t, "replay")
	for _, storeFirst := range []bool{true, false} {
		s := &schedText{window: 2000}
		if storeFirst {
			s.op("1", trace.KindAtomicStore, m["atomicpin.store"], 1)
			s.op("1.1", trace.KindAtomicLoad, m["atomicpin.load"], 1)
		} else {
			s.op("1.1", trace.KindAtomicLoad, m["atomicpin.load"], 1)
			s.op("1", trace.KindAtomicStore, m["atomicpin.store"], 1)
		}
		for range 5 {
			r := runSchedule(t, "TestAtomicPinned", s.String(), fmt.Sprintf("ATOMICPIN_WANT=%v", storeFirst))
			if r.err != nil {
				t.Fatalf("store first %v: %v\n%s", storeFirst, r.err, r.output)
			}
			if metaInt(r, "schedule.diverged") != 0 || metaInt(r, "schedule.admitted") != 2 {
				t.Fatalf("store first %v: META %v: want both admitted, no divergence\n%s", storeFirst, r.tr.Meta, dump(r.tr))
			}
			oneM(t, r.tr, trace.KindAtomicLoad, "atomicpin.load", m) // a Load read again is recorded once
		}
	}
}
