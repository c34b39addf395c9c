package runtimepatch

import (
	"strings"
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

// TestSyncMapEvents: sync.Map's reads are AtomicLoads after they read, its
// writes AtomicStores before they write, the operations that may do both an
// AtomicStore then an AtomicLoad, on one address per map and key (a key of
// another map, another key of the same map: other addresses); Range loads
// each key it visits; Clear records nothing.
func TestSyncMapEvents(t *testing.T) {
	for _, race := range []bool{false, true} {
		tr := record(t, buildEvents(t, race), "TestSyncMap", nil).tr
		store := one(t, tr, trace.KindAtomicStore, "map.store")
		load := one(t, tr, trace.KindAtomicLoad, "map.load")
		if store.G == load.G || !(store.Pre < load.Pre) || store.A != load.A {
			t.Errorf("race %v: store g%d stamp %d on %#x, the load that observed it g%d stamp %d on %#x: want two goroutines, the store first, one address",
				race, store.G, store.Pre, store.A, load.G, load.Pre, load.A)
		}
		for _, m := range []string{"map.otherkey", "map.othermap"} {
			if e := one(t, tr, trace.KindAtomicLoad, m); e.A == store.A {
				t.Errorf("race %v: @%s on the address of another map's or key's entry %#x", race, m, e.A)
			}
		}
		same := []trace.Event{one(t, tr, trace.KindAtomicStore, "map.delete"), one(t, tr, trace.KindAtomicLoad, "map.methodvalue")}
		for _, m := range []string{"map.loadorstore", "map.swap", "map.cas", "map.cad", "map.loadanddelete"} {
			w, r := one(t, tr, trace.KindAtomicStore, m), one(t, tr, trace.KindAtomicLoad, m)
			if !(w.Pre < r.Pre) {
				t.Errorf("race %v: @%s: store stamped %d, load %d: want the store first", race, m, w.Pre, r.Pre)
			}
			same = append(same, w, r)
		}
		for _, e := range same {
			if e.A != store.A {
				t.Errorf("race %v: %s at %s on %#x, want the entry's address %#x", race, e.Kind, tr.Position(e.Pos), e.A, store.A)
			}
		}
		if r := at(t, tr, trace.KindAtomicLoad, "map.range"); len(r) != 2 || r[0].A == r[1].A {
			t.Errorf("race %v: Range over 2 keys: %d loads %v, want one per key\n%s", race, len(r), r, dump(tr))
		}
		for _, k := range []trace.Kind{trace.KindAtomicLoad, trace.KindAtomicStore, trace.KindAtomicRMW} {
			if c := at(t, tr, k, "map.clear"); len(c) != 0 {
				t.Errorf("race %v: Clear recorded %d %s events, want none", race, len(c), k)
			}
		}
	}
}

// TestAtomicFuncEvents: with -race every call of a sync/atomic function is an
// atomic event at the user's line, on the address passed; without it only
// StorePointer is a call. A typed value's Store is one event either way.
func TestAtomicFuncEvents(t *testing.T) {
	for _, race := range []bool{false, true} {
		tr := record(t, buildEvents(t, race), "TestAtomicFuncs", nil).tr
		storePtr := one(t, tr, trace.KindAtomicStore, "fn.storeptr")
		if typed := at(t, tr, trace.KindAtomicStore, "fn.typed"); len(typed) != 1 {
			t.Errorf("race %v: a typed Store recorded %d times, want once\n%s", race, len(typed), dump(tr))
		}
		adds, loads, cas := at(t, tr, trace.KindAtomicRMW, "fn.add"), at(t, tr, trace.KindAtomicLoad, "fn.load"), at(t, tr, trace.KindAtomicRMW, "fn.cas")
		if !race {
			if len(adds)+len(loads)+len(cas) != 0 {
				t.Errorf("without -race: %d adds, %d loads, %d CASes recorded; want none (intrinsics)", len(adds), len(loads), len(cas))
			}
			continue
		}
		if len(adds) != 1 || len(loads) != 2 || len(cas) != 1 {
			t.Fatalf("with -race: %d adds, %d loads, %d CASes; want 1, 2, 1\n%s", len(adds), len(loads), len(cas), dump(tr))
		}
		if loads[0].A != adds[0].A && loads[1].A != adds[0].A || loads[0].A != storePtr.A && loads[1].A != storePtr.A {
			t.Errorf("loads on %#x and %#x, want the add's %#x and the StorePointer's %#x", loads[0].A, loads[1].A, adds[0].A, storePtr.A)
		}
		if adds[0].G == loads[0].G || !(storePtr.Pre < loads[0].Pre && storePtr.Pre < loads[1].Pre) {
			t.Errorf("the loads (g%d) must follow the StorePointer (g%d) they observed", loads[0].G, storePtr.G)
		}
	}
}

// TestAtomicFuncRaceReport: the race detector still sees the function forms'
// accesses and reports them at the user's line.
func TestAtomicFuncRaceReport(t *testing.T) {
	r := record(t, buildEvents(t, true), "TestAtomicFuncRace", nil)
	line := markers(t)["fn.raceadd"]
	if !strings.Contains(r.output, "WARNING: DATA RACE") || !strings.Contains(r.output, line) {
		t.Errorf("want a data race report naming the atomic add at %s; output:\n%s", line, r.output)
	}
}
