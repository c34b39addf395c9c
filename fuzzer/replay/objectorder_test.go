package replay

import (
	"testing"

	"github.com/goweave/goweave/analysis/trace"
)

// objectTrace is a run of two goroutines (3 and 4, spawned by the test goroutine 2) on one
// object at line 20, with the given operations appended as recorded.
func objectTrace(ops ...trace.Event) *trace.Trace {
	t := &trace.Trace{Meta: map[string]string{"testgoid": "2"}}
	for line := 1; line < 30; line++ {
		t.Positions = append(t.Positions, trace.Position{File: "/m/x_test.go", Line: line})
	}
	t.Positions = append(t.Positions, trace.Position{File: "/go/src/testing/testing.go", Line: 1997}) // id 30
	events := []trace.Event{
		{Kind: trace.KindGoSpawn, G: 1, A: 2, Pos: 30, Pre: 1, Post: 1},
		{Kind: trace.KindGoSpawn, G: 2, A: 3, Pos: 5, Pre: 2, Post: 2},
		{Kind: trace.KindGoSpawn, G: 2, A: 4, Pos: 6, Pre: 3, Post: 3},
	}
	for _, e := range append(events, ops...) {
		e.Index = len(t.Events)
		if e.Obj == 0 && e.Kind != trace.KindGoSpawn {
			e.Obj = 7
		}
		if e.Pos == 0 {
			e.Pos = 20
		}
		t.Events = append(t.Events, e)
	}
	return t
}

// A replay admits a Once's winner first; in the recording a goroutine that lost had reached
// the Once before it (descheduled between its Do's hook and the Once's mutex). The replay
// cannot repeat that request order, and objectOrder must not count it as a different order
// of the object; a different winner, or a different order of acquisitions, still is.
func TestObjectOrderIgnoresWhoAskedFirst(t *testing.T) {
	do := func(g, pre, post uint64, won bool) trace.Event {
		e := trace.Event{Kind: trace.KindOnceDo, G: g, Pre: pre, Post: post}
		if won {
			e.Flags = trace.FlagSuccess
		}
		return e
	}
	lock := func(g, pre, post uint64) trace.Event {
		return trace.Event{Kind: trace.KindLock, G: g, Pre: pre, Post: post}
	}
	unlock := func(g, at uint64) trace.Event {
		return trace.Event{Kind: trace.KindUnlock, G: g, Pre: at, Post: at}
	}
	for _, c := range []struct {
		name                      string
		recorded, replay, another *trace.Trace
	}{
		{"once",
			objectTrace(do(4, 10, 13, false), do(3, 11, 12, true)), // 4 asked first, 3 ran f
			objectTrace(do(3, 10, 11, true), do(4, 12, 13, false)),
			objectTrace(do(4, 10, 11, true), do(3, 12, 13, false)),
		},
		{"mutex",
			objectTrace(lock(4, 10, 14), lock(3, 11, 12), unlock(3, 13)), // 4 asked first, 3 took it
			objectTrace(lock(3, 10, 11), unlock(3, 12), lock(4, 13, 14)),
			objectTrace(lock(4, 10, 11), unlock(4, 12), lock(3, 13, 14)),
		},
	} {
		rec, rep, other := objectOrder(c.recorded), objectOrder(c.replay), objectOrder(c.another)
		if rec != rep {
			t.Errorf("%s: the replay that kept the order differs:\n got %s\nwant %s", c.name, rep, rec)
		}
		if rec == other {
			t.Errorf("%s: a run that took the object in another order does not differ: %s", c.name, other)
		}
	}
}
