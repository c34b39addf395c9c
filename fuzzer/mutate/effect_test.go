package mutate

import (
	"slices"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
)

// semaphoreRun is a buffered channel of capacity 1 used as a semaphore: 1.1 holds it (s1),
// 1.2 blocks on the full buffer (s2) until the test goroutine's receive r1 frees the slot.
// The runtime completes s2 inside r1 and stamps it first; 1.2 then runs its next operation
// x before r1's own completion is stamped.
func semaphoreRun() (r *Run, s2, r1, x int) {
	const sem, other = 7, 8
	b := newBuilder()
	b.add(trace.Event{Kind: trace.KindChanMake, G: 2, Obj: sem, Pos: 4, A: 1})
	b.spawn(2, 3, 5)
	b.spawn(2, 4, 6)
	b.add(trace.Event{Kind: trace.KindChanSend, G: 3, Obj: sem, Pos: 10, A: 1, B: 1, C: 1, Pre: 100, Post: 101})
	s2 = b.add(trace.Event{Kind: trace.KindChanSend, G: 4, Obj: sem, Pos: 10, A: 2, B: 1, C: 1, Pre: 102, Post: 105})
	r1 = b.add(trace.Event{Kind: trace.KindChanRecv, G: 2, Obj: sem, Pos: 20, A: 1, C: 1, Pre: 103, Post: 108})
	x = b.add(trace.Event{Kind: trace.KindChanSend, G: 4, Obj: other, Pos: 11, A: 1, B: 1, C: 1, Pre: 106, Post: 107})
	b.add(trace.Event{Kind: trace.KindChanRecv, G: 2, Obj: sem, Pos: 21, A: 2, C: 1, Pre: 109, Post: 110})
	b.hb(r1, s2)
	return b.run(), s2, r1, x
}

// The receive that freed a blocked sender's slot takes effect before that sender, and so
// before what the sender's goroutine did next: orders built from the run admit it first.
// By completion stamp x came before r1, which an order cannot replay: 1.2 waits in s2 for
// r1, and the order waits for x.
func TestEffectOrderPutsTheFreeingReceiveBeforeTheWokenSender(t *testing.T) {
	r, s2, r1, x := semaphoreRun()
	lin := linear(r)
	if k := slices.Index(lin, r1); k < 0 || k > slices.Index(lin, s2) || k > slices.Index(lin, x) {
		t.Errorf("effect order %v: receive %d not before the woken send %d and its successor %d", lin, r1, s2, x)
	}
	s := Replay(r, 0)
	at := map[int]int{}
	for k, op := range s.Order.Ops {
		if i, ok := r.Names.Event(op); ok {
			at[i] = k
		}
	}
	// the woken send is admitted at its request (it blocks, as recorded); x only after r1
	if at[s2] > at[r1] || at[r1] > at[x] {
		t.Errorf("replay admits %v: want the woken send, then the receive, then its successor", s.Order.Ops)
	}
	must := MustHappenBefore(r.Trace)
	if !must.HappensBefore(r1, s2) || !must.HappensBefore(r1, x) {
		t.Errorf("MustHappenBefore: receive before the send it completed %v, before that goroutine's next operation %v",
			must.HappensBefore(r1, s2), must.HappensBefore(r1, x))
	}
}

// A receive that completed before the send of its slot, or was requested after the send
// completed, keeps its completion stamp.
func TestEffectOrderKeepsOtherReceives(t *testing.T) {
	r, _, r1, _ := semaphoreRun()
	r.Trace.Events[r1].Pre = 106 // requested after s2 completed: it did not wake s2
	if keys := completionKeys(r.Trace); keys[r1] != 2*r.Trace.Events[r1].Post+1 {
		t.Errorf("key %d, want %d", keys[r1], 2*r.Trace.Events[r1].Post+1)
	}
}
