package mutate

import (
	"reflect"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/schedule"
)

func flowRun() (r *Run, e map[string]int) {
	const once, mu, ch = 5, 6, 9
	b := newBuilder()
	b.spawn(2, 3, 5)
	b.spawn(2, 4, 6)
	e = map[string]int{}
	e["do1"] = b.add(trace.Event{Kind: trace.KindOnceDo, G: 3, Obj: once, Pos: 20, Flags: trace.FlagSuccess})
	e["do2"] = b.add(trace.Event{Kind: trace.KindOnceDo, G: 4, Obj: once, Pos: 30})
	b.hb(e["do1"], e["do2"]) // the Do that did not run waited for the one that did
	e["lock"] = b.op(3, trace.KindLock, mu, 21)
	e["try"] = b.add(trace.Event{Kind: trace.KindTryLock, G: 4, Obj: mu, Pos: 31, Flags: trace.FlagNonBlocking})
	e["unlock"] = b.op(3, trace.KindUnlock, mu, 22)
	// goroutine 4 then locks: after the unlock because of the mutex only
	e["lock4"] = b.op(4, trace.KindLock, mu, 33)
	b.hb(e["unlock"], e["lock4"])
	e["send3"] = b.send(3, ch, 23, 1, 1, 2)
	e["send4"] = b.send(4, ch, 32, 2, 2, 2)
	// A Do whose goroutine knew of the one that ran before it got there (it received from
	// goroutine 3 after that Do): not a candidate.
	b.hb(e["do1"], b.recv(2, 77, 39, 1))
	e["do3"] = b.add(trace.Event{Kind: trace.KindOnceDo, G: 2, Obj: once, Pos: 40})
	b.hb(e["do1"], e["do3"]) // the once itself orders them
	// Two sends of one goroutine (23, 24): not a candidate either; 24 is ordered after 32.
	b.hb(e["send4"], b.send(3, ch, 24, 3, 1, 2))
	return b.run(), e
}

func TestFlowPairs(t *testing.T) {
	r, e := flowRun()
	got := FlowPairs(r)
	// Lost races first (Once, TryLock), then Lock/Lock, then sends.
	want := []FlowPair{{e["do1"], e["do2"]}, {e["lock"], e["try"]}, {e["lock"], e["lock4"]}, {e["send3"], e["send4"]}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pairs %v, want %v (events %v)", got, want, e)
	}
}

func TestFlowDelays(t *testing.T) {
	r, _ := flowRun()
	f := NewFlow()
	muts := f.Next(r)
	if len(muts) != 4 {
		t.Fatalf("%d mutations, want 4", len(muts))
	}
	want := schedule.Delay{
		Op:     schedule.OpID{G: "1.1", Kind: trace.KindOnceDo, Pos: pos(20), N: 1},
		Until:  schedule.OpID{G: "1.2", Kind: trace.KindOnceDo, Pos: pos(30), N: 1},
		Window: DefaultDelayWindow,
	}
	if s := muts[0].Schedule; len(s.Delays) != 1 || s.Delays[0] != want || s.Order != nil || s.Selects != nil {
		t.Errorf("first mutation %+v, want delay %+v", s, want)
	}
	if want := "delay 1.1 OnceDo x_test.go:20#1 until 1.2 OnceDo x_test.go:30#1"; muts[0].Note != want {
		t.Errorf("note %q, want %q", muts[0].Note, want)
	}
	for i := 1; i < flowMaxQueued; i++ {
		if len(f.Next(r)) == 0 {
			t.Fatalf("proposal %d of the same delays: none; a delay may be proposed %d times", i+1, flowMaxQueued)
		}
	}
	if len(f.Next(r)) != 0 {
		t.Errorf("the same delays were proposed more than %d times", flowMaxQueued)
	}
	f2 := NewFlow()
	f2.MaxPerRun = 2
	if n := len(f2.Next(r)); n != 2 {
		t.Errorf("MaxPerRun 2: %d mutations", n)
	}
}
