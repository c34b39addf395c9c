package mutate

import (
	"slices"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// The zerolog diode's shape: the reader's empty Swap (line 73), then the writer's Add and
// CompareAndSwap on the same word (43, 59), then the reader's look at the context (83). The
// steered run's delay schedule becomes an order of the whole run, atomics included; a
// delay of an operation the order places is dropped, the others kept, and the steered
// order's op the run performed without completing it comes last.
func TestPinRun(t *testing.T) {
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
	b.blocked(2, trace.KindChanRecv, 9, 86)
	r := b.run()
	at := func(g schedule.GoID, k trace.Kind, line int) schedule.OpID {
		return schedule.OpID{G: g, Kind: k, Pos: pos(line), N: 1}
	}
	placed := schedule.Delay{Op: at("1.1", trace.KindSelect, 83), Until: at("1", trace.KindCondBroadcast, 57), Window: 50 * time.Millisecond}
	other := schedule.Delay{Op: at("1.1", trace.KindLock, 99), Until: at("1", trace.KindAtomicRMW, 43), Window: 50 * time.Millisecond}
	s := &schedule.Schedule{Delays: []schedule.Delay{placed, other}, Order: &schedule.Order{Window: time.Second, Ops: []schedule.OpID{at("1", trace.KindChanRecv, 86)}}}
	if !PinRun(s, r) {
		t.Fatal("PinRun left the schedule unchanged")
	}
	want := []schedule.OpID{
		at("1", trace.KindAtomicStore, 10), at("1.1", trace.KindLock, 64), at("1.1", trace.KindAtomicRMW, 73),
		at("1", trace.KindAtomicRMW, 43), at("1", trace.KindAtomicRMW, 59), at("1", trace.KindCondBroadcast, 57),
		at("1.1", trace.KindSelect, 83), at("1.1", trace.KindUnlock, 65), at("1", trace.KindChanRecv, 86),
	}
	if len(s.Order.Ops) != len(want) || s.Order.Window != time.Second {
		t.Fatalf("order %+v, want %v in the steered order's window", s.Order, want)
	}
	for k := range want {
		if s.Order.Ops[k] != want[k] {
			t.Errorf("op %d = %v, want %v", k+1, s.Order.Ops[k], want[k])
		}
	}
	if len(s.Delays) != 1 || s.Delays[0] != other {
		t.Errorf("delays %+v, want only the one of an operation the order does not name", s.Delays)
	}
	if !s.Order.PinsAtomics() || s.Validate() != nil {
		t.Errorf("order pins atomics %v, validates %v", s.Order.PinsAtomics(), s.Validate())
	}

	// A trace that lost events cannot be replayed by an order: the schedule is left as it was.
	b = newBuilder()
	b.spawn(2, 3, 40)
	b.add(trace.Event{Kind: trace.KindAtomicRMW, G: 3, Pos: 73, A: 0x20})
	b.add(trace.Event{Kind: trace.KindAtomicRMW, G: 2, Pos: 43, A: 0x20})
	b.t.Meta["dropped"] = "3"
	s = &schedule.Schedule{Delays: []schedule.Delay{placed}}
	if PinRun(s, b.run()) || s.Order != nil || len(s.Delays) != 1 {
		t.Errorf("events dropped: %+v, want the schedule unchanged", s)
	}
}

// A receive that blocked until another goroutine's close is ordered at its request, before
// the operations that goroutine did meanwhile; one that found its value at once, and every
// other operation, where it took effect.
func TestPinStampsBlockedReceive(t *testing.T) {
	b := newBuilder()
	b.spawn(2, 3, 40)
	recv := b.add(trace.Event{Kind: trace.KindChanRecv, G: 2, Obj: 9, Pos: 86, Pre: 10, Post: 30})
	sel := b.add(trace.Event{Kind: trace.KindSelect, G: 3, Pos: 83, Pre: 12, Post: 13})
	closed := b.add(trace.Event{Kind: trace.KindChanClose, G: 3, Obj: 9, Pos: 94, Pre: 14, Post: 15})
	late := b.add(trace.Event{Kind: trace.KindChanRecv, G: 3, Obj: 5, Pos: 95, Pre: 16, Post: 40}) // descheduled: no partner meanwhile
	lock := b.add(trace.Event{Kind: trace.KindLock, G: 2, Obj: 7, Pos: 87, Pre: 35, Post: 36})
	r := b.run()
	r.Prepare()
	want := []int{recv, sel, closed, lock, late}
	got := r.linPin
	if len(got) != len(want) {
		t.Fatalf("linPin %v, want %v", got, want)
	}
	for k := range want {
		if got[k] != want[k] {
			t.Fatalf("linPin %v, want %v: the blocked receive first, the descheduled one last", got, want)
		}
	}
	if r.rank[recv] < r.rank[closed] {
		t.Errorf("the strategies' order (lin) moved too: the receive ranks %d, the close %d", r.rank[recv], r.rank[closed])
	}
}

// Two workers send on one channel to a waiting receiver; the first to stamp its request lost
// the channel's lock to the second, which paired, and blocked until the next receive. The
// loser stays behind the winner in the order, or every replay hands the receiver its value.
func TestPinStampsKeepChannelOrder(t *testing.T) {
	b := newBuilder()
	b.spawn(2, 3, 40)
	b.spawn(2, 4, 41)
	recv := b.add(trace.Event{Kind: trace.KindChanRecv, G: 2, Obj: 9, Pos: 42, Pre: 10, Post: 30})
	loser := b.add(trace.Event{Kind: trace.KindChanSend, G: 3, Obj: 9, Pos: 25, Pre: 15, Post: 50})
	winner := b.add(trace.Event{Kind: trace.KindChanSend, G: 4, Obj: 9, Pos: 25, Pre: 20, Post: 29})
	next := b.add(trace.Event{Kind: trace.KindChanRecv, G: 2, Obj: 9, Pos: 42, Pre: 45, Post: 50})
	r := b.run()
	r.Prepare()
	pos := func(e int) int { return slices.Index(r.linPin, e) }
	if pos(recv) > pos(winner) {
		t.Errorf("linPin %v: the blocked receive (%d) after its partner (%d)", r.linPin, recv, winner)
	}
	if pos(loser) < pos(winner) {
		t.Errorf("linPin %v: the send that paired later (%d) is admitted before the one that paired first (%d)", r.linPin, loser, winner)
	}
	if pos(loser) > pos(next) {
		t.Errorf("linPin %v: the later send (%d) after the receive it woke from (%d): it would not block there", r.linPin, loser, next)
	}
}
