package mutate

import (
	"testing"
	"time"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// The zerolog diode's shape: the reader's empty Swap (line 73), then the writer's Add and
// CompareAndSwap on the same word (43, 59), then the reader's look at the context (83). The
// steered run's delay schedule becomes an order of the run up to the last shared atomic,
// atomics included; a delay of an operation the order places is dropped, the others kept.
func TestPinAtomics(t *testing.T) {
	b := newBuilder()
	b.spawn(2, 3, 40)
	b.add(trace.Event{Kind: trace.KindAtomicStore, G: 2, Pos: 10, A: 0x10}) // a word of the writer alone
	b.op(3, trace.KindLock, 7, 64)
	b.add(trace.Event{Kind: trace.KindAtomicRMW, G: 3, Pos: 73, A: 0x20}) // the reader finds the slot empty
	b.add(trace.Event{Kind: trace.KindAtomicRMW, G: 2, Pos: 43, A: 0x20})
	b.add(trace.Event{Kind: trace.KindAtomicRMW, G: 2, Pos: 59, A: 0x20})
	b.op(2, trace.KindCondBroadcast, 8, 57)
	b.op(3, trace.KindSelect, 0, 83)
	b.op(3, trace.KindUnlock, 7, 65)
	r := b.run()
	at := func(g schedule.GoID, k trace.Kind, line int) schedule.OpID {
		return schedule.OpID{G: g, Kind: k, Pos: pos(line), N: 1}
	}
	late := schedule.Delay{Op: at("1.1", trace.KindSelect, 83), Until: at("1", trace.KindCondBroadcast, 57), Window: 50 * time.Millisecond}
	early := schedule.Delay{Op: at("1.1", trace.KindLock, 64), Until: at("1", trace.KindAtomicRMW, 43), Window: 50 * time.Millisecond}
	s := &schedule.Schedule{Delays: []schedule.Delay{late, early}}
	if !PinAtomics(s, r) {
		t.Fatal("PinAtomics found no shared atomic")
	}
	want := []schedule.OpID{
		at("1", trace.KindAtomicStore, 10), at("1.1", trace.KindLock, 64), at("1.1", trace.KindAtomicRMW, 73),
		at("1", trace.KindAtomicRMW, 43), at("1", trace.KindAtomicRMW, 59),
	}
	if s.Order == nil || len(s.Order.Ops) != len(want) {
		t.Fatalf("order %+v, want %v", s.Order, want)
	}
	for k := range want {
		if s.Order.Ops[k] != want[k] {
			t.Errorf("op %d = %v, want %v", k+1, s.Order.Ops[k], want[k])
		}
	}
	if len(s.Delays) != 1 || s.Delays[0] != late {
		t.Errorf("delays %+v, want only the one of the select after the order", s.Delays)
	}
	if !s.Order.PinsAtomics() || s.Validate() != nil {
		t.Errorf("order pins atomics %v, validates %v", s.Order.PinsAtomics(), s.Validate())
	}

	// Atomics of one goroutine alone order nothing: the schedule is left as it was.
	b = newBuilder()
	b.spawn(2, 3, 40)
	b.add(trace.Event{Kind: trace.KindAtomicRMW, G: 3, Pos: 73, A: 0x20})
	b.add(trace.Event{Kind: trace.KindAtomicRMW, G: 2, Pos: 43, A: 0x30})
	s = &schedule.Schedule{Delays: []schedule.Delay{late}}
	if PinAtomics(s, b.run()) || s.Order != nil || len(s.Delays) != 1 {
		t.Errorf("no shared word: %+v, want the schedule unchanged", s)
	}
}

// A steered run's order is covered whole: the pinned order reaches at least its last op
// the run performed, in the recorded order, even past the last shared atomic.
func TestPinAtomicsCoversTheOrder(t *testing.T) {
	b := newBuilder()
	b.spawn(2, 3, 40)
	b.add(trace.Event{Kind: trace.KindAtomicStore, G: 3, Pos: 20, A: 0x20})
	b.add(trace.Event{Kind: trace.KindAtomicLoad, G: 2, Pos: 21, A: 0x20})
	b.op(3, trace.KindLock, 7, 30)
	b.op(2, trace.KindLock, 7, 31)
	r := b.run()
	lock := schedule.OpID{G: "1", Kind: trace.KindLock, Pos: pos(31), N: 1}
	s := &schedule.Schedule{Order: &schedule.Order{Window: time.Second, Ops: []schedule.OpID{lock}}}
	if !PinAtomics(s, r) {
		t.Fatal("PinAtomics found no shared atomic")
	}
	if n := len(s.Order.Ops); n != 4 || s.Order.Ops[3] != lock || s.Order.Window != time.Second {
		t.Errorf("order %+v, want the 4 operations up to the schedule's Lock, its window kept", s.Order)
	}
}
