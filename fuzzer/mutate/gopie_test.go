package mutate

import (
	"reflect"
	"slices"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// mutexRun is the seed's example, recorded in the order l1, u1, l2, u2:
//
//	go func() { m.Lock() /*l1, line 10*/; m.Unlock() /*u1, line 11*/ }()
//	m.Lock() /*l2, line 13*/; m.Unlock() /*u2, line 14*/
func mutexRun() (r *Run, l1, u1, l2, u2 int) {
	const m = 7
	b := newBuilder()
	b.spawn(2, 3, 5)
	l1 = b.op(3, trace.KindLock, m, 10)
	u1 = b.op(3, trace.KindUnlock, m, 11)
	l2 = b.op(2, trace.KindLock, m, 13)
	u2 = b.op(2, trace.KindUnlock, m, 14)
	b.hb(u1, l2) // the lock acquires what the unlock released
	return b.run(), l1, u1, l2, u2
}

func TestChains(t *testing.T) {
	// goroutines by completion order: 3, 4, 4, 5, 3, 3 -> chains [3 4] [4 5 3] [3]
	b := newBuilder()
	b.spawn(2, 3, 5)
	b.spawn(2, 4, 6)
	b.spawn(2, 5, 7)
	e := []int{
		b.op(3, trace.KindLock, 1, 20),
		b.op(4, trace.KindLock, 2, 30),
		b.op(4, trace.KindUnlock, 2, 31),
		b.op(5, trace.KindLock, 3, 40),
		b.op(3, trace.KindUnlock, 1, 21),
		b.op(3, trace.KindLock, 1, 22),
	}
	got := Chains(b.run())
	want := [][]int{{e[0], e[1]}, {e[2], e[3], e[4]}, {e[5]}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("chains %v, want %v", got, want)
	}
}

func TestAbridgeFlip(t *testing.T) {
	a, b := Abridge([]int{1, 2, 3})
	if !reflect.DeepEqual(a, []int{2, 3}) || !reflect.DeepEqual(b, []int{1, 2}) {
		t.Errorf("abridge: %v %v", a, b)
	}
	if got := Flip([]int{1, 2, 3}); !reflect.DeepEqual(got, [][]int{{2, 1, 3}, {1, 3, 2}}) {
		t.Errorf("flip: %v", got)
	}
}

func TestRelations(t *testing.T) {
	r, l1, u1, l2, u2 := mutexRun()
	rel := NewRelations(r, nil, 64)
	if got := rel.rel1(u1); !reflect.DeepEqual(got, []int{l1}) {
		t.Errorf("Rel1(u1) = %v, want [l1]", got)
	}
	if got := rel.rel1(l2); !reflect.DeepEqual(got, []int{u2}) {
		t.Errorf("Rel1(l2) = %v, want [u2]", got)
	}
	// CPOP2: consecutive on the mutex, other goroutine: u1 -> l2 only.
	if got := rel.cpop2(l2); !reflect.DeepEqual(got, []int{u1}) {
		t.Errorf("CPOP2(l2) = %v, want [u1]", got)
	}
	// Rel2(l1): rule 3 through Rel1(l1) = {u1} reaches CPOP2(u1) = {l2}; rule 4 through l2
	// reaches CPOP2(l2) = {u1}.
	if got := rel.rel2(l1); !reflect.DeepEqual(got, []int{l2, u1}) {
		t.Errorf("Rel2(l1) = %v, want [l2 u1]", got)
	}
	// Augment keeps neighbours in different goroutines: [l1] + l2 (u1 is l1's own goroutine).
	if got := rel.Augment([]int{l1}); !reflect.DeepEqual(got, [][]int{{l1, l2}}) {
		t.Errorf("Augment([l1]) = %v", got)
	}
	if got := rel.Substitute([]int{u1, l2}); !reflect.DeepEqual(got, [][]int{{l1, l2}, {u1, u2}}) {
		t.Errorf("Substitute([u1 l2]) = %v", got)
	}
}

func TestHBPruningDropsImpossibleFlip(t *testing.T) {
	r, l1, u1, l2, u2 := mutexRun()
	r.Prepare()
	lin := linear(r)
	// The flip l2 before u1 would lock a held mutex: u1 happens before l2.
	if _, err := replayOrder(r, lin, []int{l2, u1}); err == nil {
		t.Fatal("the flip [l2 u1] was not pruned")
	}
	// The recorded order of the chain is fine, and its prefix is what must come first: l1.
	if got, err := replayOrder(r, lin, []int{u1, l2}); err != nil || !reflect.DeepEqual(got, []int{l1, u1, l2}) {
		t.Errorf("replayOrder([u1 l2]) = %v, %v; want [l1 u1 l2]", got, err)
	}
	g := NewGoPie(1)
	muts := g.Next(r)
	if g.Pruned == 0 {
		t.Error("GoPie pruned nothing")
	}
	for _, m := range muts {
		ops := m.Schedule.Order.Ops
		iu1 := slices.Index(ops, r.Names.Ops[u1])
		il2 := slices.Index(ops, r.Names.Ops[l2])
		if il2 >= 0 && (iu1 < 0 || iu1 > il2) {
			t.Errorf("proposed an order with l2 before u1: %v", ops)
		}
	}
	_ = u2
}

// sendsRun: two goroutines send on a channel with capacity 2 (lines 20, 30), concurrently;
// the test goroutine receives twice (line 40), getting 20's value first.
func sendsRun() (r *Run, s3, s4, r1, r2 int) {
	const c = 9
	b := newBuilder()
	b.spawn(2, 3, 5)
	b.spawn(2, 4, 6)
	s3 = b.send(3, c, 20, 1, 1, 2)
	s4 = b.send(4, c, 30, 2, 2, 2)
	r1 = b.recv(2, c, 40, 1)
	r2 = b.recv(2, c, 40, 2)
	b.hb(s3, r1)
	b.hb(s4, r2)
	return b.run(), s3, s4, r1, r2
}

func TestGoPieProposesValidFlip(t *testing.T) {
	r, s3, s4, r1, _ := sendsRun()
	r.Prepare()
	if got := Chains(r); !reflect.DeepEqual(got[0], []int{s3, s4, r1}) {
		t.Fatalf("chains %v", got)
	}
	g := NewGoPie(1)
	muts := g.Next(r)
	want := []schedule.OpID{
		{G: "1.2", Kind: trace.KindChanSend, Pos: pos(30), N: 1},
		{G: "1.1", Kind: trace.KindChanSend, Pos: pos(20), N: 1},
		{G: "1", Kind: trace.KindChanRecv, Pos: pos(40), N: 1},
	}
	found := false
	for _, m := range muts {
		if m.Strategy != "gopie" || m.Schedule.Order == nil {
			t.Fatalf("bad mutation %+v", m)
		}
		if _, err := schedule.Marshal(m.Schedule); err != nil {
			t.Errorf("does not encode: %v", err)
		}
		if reflect.DeepEqual(m.Schedule.Order.Ops, want) {
			found = true
			if n := "admit 1.2 ChanSend x_test.go:30#1, 1.1 ChanSend x_test.go:20#1, 1 ChanRecv x_test.go:40#1 in this order after their prerequisites (recorded chain: 1.1 ChanSend x_test.go:20#1, 1.2 ChanSend x_test.go:30#1, 1 ChanRecv x_test.go:40#1)"; m.Note != n {
				t.Errorf("note %q", m.Note)
			}
		}
	}
	if !found {
		t.Errorf("no mutation flips the two sends; got %d mutations", len(muts))
	}
	// Dedup: the same run proposes nothing new the second time... except variants the
	// random rounds did not reach before; the flip itself is not proposed again.
	for _, m := range g.Next(r) {
		if reflect.DeepEqual(m.Schedule.Order.Ops, want) {
			t.Error("the flip was proposed twice")
		}
	}
	_ = s4
}

func TestMutateChainBound(t *testing.T) {
	b := newBuilder()
	var chain []int
	for k := range 6 {
		g := uint64(3 + k%2)
		if k < 2 {
			b.spawn(2, g, 5)
		}
		chain = append(chain, b.op(g, trace.KindLock, uint64(10+k), uint32(20+k)))
	}
	r := b.run()
	g := NewGoPie(1)
	g.MutateBound = 3
	rel := NewRelations(r, nil, 64)
	if got := g.MutateChain(rel, chain); len(got) != 3 {
		t.Errorf("%d variants with MutateBound 3, want 3", len(got))
	}
	g.MutateBound = 128
	g.Energy = 200 // always another round: stops at the bound or when nothing new appears
	got := g.MutateChain(rel, chain)
	if len(got) > 128 || len(got) < 10 {
		t.Errorf("%d variants, want 10..128", len(got))
	}
	for _, v := range got {
		if reflect.DeepEqual(v, chain) {
			t.Error("the original chain is among its variants")
		}
	}
}

// Schedules proposed before (Run.Proposed: an earlier campaign ran them) do not use up the
// per-run limit: the next ones come instead.
func TestGoPieSkipsSchedulesProposedBefore(t *testing.T) {
	r, _, _, _, _ := sendsRun()
	all := NewGoPie(1).Next(r)
	if len(all) < 2 {
		t.Fatalf("%d mutations, want at least 2", len(all))
	}
	r.Proposed = func(key string) bool { return key == all[0].Key }
	g := NewGoPie(1)
	g.MaxMutations = len(all) - 1
	got := g.Next(r)
	if len(got) != len(all)-1 {
		t.Errorf("%d mutations, want %d", len(got), len(all)-1)
	}
	for _, m := range got {
		if m.Key == all[0].Key {
			t.Errorf("proposed again: %s", m.Note)
		}
	}
}

// A chain longer than GoPieMaxChain is mutated in pieces: the copies of a long ping-pong's
// flips would cost the square of its length.
func TestGoPieCutsLongChains(t *testing.T) {
	long := make([]int, 2*GoPieMaxChain+3)
	for i := range long {
		long[i] = i
	}
	pieces := cut([][]int{{7}, long}, GoPieMaxChain)
	if len(pieces) != 4 || len(pieces[1]) != GoPieMaxChain || len(pieces[3]) != 3 || pieces[3][0] != 2*GoPieMaxChain {
		t.Fatalf("pieces %v", pieces)
	}
	pieces[1] = append(pieces[1], -1) // a piece's capacity ends with it: no aliasing
	if pieces[2][0] != GoPieMaxChain {
		t.Errorf("appending to a piece overwrote the next: %v", pieces[2])
	}
}
