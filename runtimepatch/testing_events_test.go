package runtimepatch

import (
	"testing"

	"github.com/goweave/goweave/analysis/trace"
)

// The overlay on package testing records each use of a test's T at the user's call, once
// (Skip calls SkipNow and log inside testing: not recorded again), and each test's end on
// its goroutine at its function's first line.
func TestTestingEvents(t *testing.T) {
	tr := record(t, buildEvents(t, false), "TestTestingUses", nil).tr
	own := one(t, tr, trace.KindTestUse, "tuse.own")
	worker := one(t, tr, trace.KindTestUse, "tuse.worker")
	iface := one(t, tr, trace.KindTestUse, "tuse.iface")
	end := one(t, tr, trace.KindTestEnd, "tuse.end")
	subSkip := one(t, tr, trace.KindTestUse, "tuse.subskip")
	subEnd := one(t, tr, trace.KindTestEnd, "tuse.subend")

	if own.A != 1 || worker.A != 2 || iface.A != 1 || subSkip.A != 7 {
		t.Errorf("methods %d %d %d %d, want 1 (Log), 2 (Logf), 1, 7 (Skip)", own.A, worker.A, iface.A, subSkip.A)
	}
	for _, e := range []trace.Event{own, worker, iface} {
		if e.Obj == 0 || e.Obj != end.Obj || e.Pre != e.Post || e.Flags != 0 {
			t.Errorf("%+v: want a completed use of the test %d", e, end.Obj)
		}
	}
	if own.G != end.G || worker.G == end.G || iface.G != end.G {
		t.Errorf("goroutines: own g%d, worker g%d, interface g%d, end g%d; want the worker's apart", own.G, worker.G, iface.G, end.G)
	}
	if subSkip.Obj != subEnd.Obj || subEnd.Obj == end.Obj || subEnd.G == end.G || subSkip.G != subEnd.G {
		t.Errorf("subtest: skip %+v, end %+v; want its own T and goroutine", subSkip, subEnd)
	}
	if !(worker.Post < end.Pre && subEnd.Post < end.Pre) {
		t.Errorf("the test's end %d is not after the worker's use %d and the subtest's end %d", end.Pre, worker.Post, subEnd.Post)
	}
	n := 0
	for _, e := range tr.Events {
		if e.Kind == trace.KindTestUse {
			n++
		}
	}
	if n != 4 {
		t.Errorf("%d TestUse events, want 4 (nothing recorded twice, nothing from package testing)\n%s", n, dump(tr))
	}
}
