package runtimepatch

import (
	"testing"

	"github.com/goweave/goweave/analysis/trace"
)

// TestAtomicValueEvents: atomic.Value's Store, Load, Swap and CompareAndSwap
// called by the user are recorded at the user's lines on one address (the
// Value's), a Load through an interface (not inlined) too; the Load of an
// empty Value records nothing. With and without the race detector.
func TestAtomicValueEvents(t *testing.T) {
	for _, race := range []bool{false, true} {
		tr := record(t, buildEvents(t, race), "TestAtomicValue", nil).tr
		if evs := at(t, tr, trace.KindAtomicLoad, "value.empty"); len(evs) != 0 {
			t.Errorf("race %v: the Load of an empty Value recorded %d events, want none", race, len(evs))
		}
		store := one(t, tr, trace.KindAtomicStore, "value.store")
		load := one(t, tr, trace.KindAtomicLoad, "value.load")
		others := []trace.Event{load, one(t, tr, trace.KindAtomicRMW, "value.swap"),
			one(t, tr, trace.KindAtomicRMW, "value.cas"), one(t, tr, trace.KindAtomicLoad, "value.iface")}
		if store.A == 0 || store.G == load.G {
			t.Errorf("race %v: store on %#x by g%d, load by g%d: want an address and two goroutines", race, store.A, store.G, load.G)
		}
		for _, e := range others {
			if e.A != store.A {
				t.Errorf("race %v: %s at %s on %#x, want the Value's address %#x", race, e.Kind, tr.Position(e.Pos), e.A, store.A)
			}
		}
		if !(store.Pre < load.Pre) {
			t.Errorf("race %v: store stamped %d, the load that observed it %d: want the store first", race, store.Pre, load.Pre)
		}
	}
}

// TestAtomicTypedEvents: typed atomic values' methods are recorded on the
// value's address.
func TestAtomicTypedEvents(t *testing.T) {
	tr := record(t, buildEvents(t, false), "TestAtomicTyped", nil).tr
	add := one(t, tr, trace.KindAtomicRMW, "typed.add")
	if load := one(t, tr, trace.KindAtomicLoad, "typed.load"); add.A == 0 || load.A != add.A {
		t.Errorf("Add on %#x, Load on %#x: want one address", add.A, load.A)
	}
}
