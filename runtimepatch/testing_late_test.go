package runtimepatch

import (
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
)

// A use the schedule still holds when the root test ends counts for the root, which waits
// for it: the use runs after the test's end and panics. The order admits the test's end,
// then waits for an operation of a goroutine that never exists (1.2) for its window while
// the root test ends, and only then the use. Before the use counted itself before it was
// held, the root found no late use and the binary exited under it (exit 0 here; with the
// race detector's report of the root's unlocked done, "race detected outside of test
// execution", exit 1: goweave called the replay a crash).
func TestScheduleLateUseOutlivesRoot(t *testing.T) {
	m := markersIn(t, "replay")
	s := &schedText{window: 300}
	s.op("1.1", trace.KindChanClose, m["late.close"], 1)
	s.op("1", trace.KindChanRecv, m["late.recv"], 1)
	s.op("1", trace.KindTestEnd, m["late.end"], 1)
	s.op("1.2", trace.KindChanClose, m["late.close"], 1) // never arrives: holds the use
	s.op("1.1", trace.KindTestUse, m["late.use"], 1)
	r := runSchedule(t, "TestLateUse", s.String())
	if want := "panic: Log in goroutine after TestLateUse has completed: late"; !strings.Contains(r.output, want) {
		t.Fatalf("output lacks %q (exit %v):\n%s", want, r.err, r.output)
	}
	var use, end *trace.Event
	for i, e := range r.tr.Events {
		switch e.Kind {
		case trace.KindTestUse:
			use = &r.tr.Events[i]
		case trace.KindTestEnd:
			end = &r.tr.Events[i]
		}
	}
	if use == nil || end == nil || use.Pre < end.Post {
		t.Errorf("use %+v, end %+v: want the use after the end", use, end)
	}
}
