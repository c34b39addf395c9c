package mutate

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
)

// channelRun: the test goroutine makes a channel with capacity 2 (line 4), two goroutines send
// on it (lines 20, 30), the test goroutine receives twice (line 40). variant 0: the send of
// line 20 is received first; 1: the send of line 30 is (partners swapped); 2: as 0, but the
// second receive never completes and the line-30 send blocks. goOff, objOff and gap shift goroutine
// numbers, object ids and timestamps without changing the schedule.
func channelRun(variant int, goOff, objOff, gap uint64) *Run {
	ch := 9 + objOff
	b := newBuilder()
	b.gap = gap
	b.add(trace.Event{Kind: trace.KindChanMake, G: 2, Obj: ch, Pos: 4, A: 2})
	g3, g4 := 3+goOff, 4+goOff
	b.spawn(2, g3, 5)
	b.spawn(2, g4, 6)
	switch variant {
	case 0:
		s3 := b.send(g3, ch, 20, 1, 1, 2)
		s4 := b.send(g4, ch, 30, 2, 2, 2)
		b.hb(s3, b.recv(2, ch, 40, 1))
		b.hb(s4, b.recv(2, ch, 40, 2))
	case 1:
		s4 := b.send(g4, ch, 30, 1, 1, 2)
		s3 := b.send(g3, ch, 20, 2, 2, 2)
		b.hb(s4, b.recv(2, ch, 40, 1))
		b.hb(s3, b.recv(2, ch, 40, 2))
	case 2:
		s3 := b.send(g3, ch, 20, 1, 1, 2)
		b.hb(s3, b.recv(2, ch, 40, 1))
		b.blocked(2, trace.KindChanRecv, ch, 40)
		b.blocked(g4, trace.KindChanSend, ch, 30)
	}
	return b.run()
}

func TestSignatureStability(t *testing.T) {
	base := Signature(channelRun(0, 0, 0, 0))
	for _, c := range []struct{ goOff, objOff, gap uint64 }{{10, 0, 0}, {0, 100, 0}, {0, 0, 7}, {33, 5, 3}} {
		if got := Signature(channelRun(0, c.goOff, c.objOff, c.gap)); got != base {
			t.Errorf("goroutines +%d, objects +%d, stamps x%d: signature %s, want %s\n%s", c.goOff, c.objOff, c.gap+1, got, base,
				ExecutionGraph(channelRun(0, c.goOff, c.objOff, c.gap)))
		}
	}
	swapped := Signature(channelRun(1, 0, 0, 0))
	if swapped == base {
		t.Errorf("swapped partners give the same signature:\n%s", ExecutionGraph(channelRun(1, 0, 0, 0)))
	}
	if Signature(channelRun(1, 20, 3, 2)) != swapped {
		t.Error("swapped run not stable under renumbering")
	}
	if Signature(channelRun(2, 0, 0, 0)) == base {
		t.Error("a run with a blocked receive has the signature of the complete one")
	}
	g := ExecutionGraph(channelRun(0, 0, 0, 0))
	if !strings.Contains(g, "1 ChanRecv "+testFile+":40 #1 <- 1.1 ChanSend "+testFile+":20 #1") {
		t.Errorf("graph does not record which send the receive got:\n%s", g)
	}
}

func TestCoverage(t *testing.T) {
	c := NewCoverage()
	if !c.Add("a") || c.Add("a") || !c.Add("b") || c.Len() != 2 || c.Counts["a"] != 2 {
		t.Errorf("coverage %+v", c.Counts)
	}
}

func TestReorderAndMatchDecisions(t *testing.T) {
	r, s3, s4, r1, r2 := sendsRun()
	r.Prepare()
	lin := linear(r)
	// At the first decision (s3 next), s4 could go instead; r1 and r2 happen after s3.
	if got := ReorderDecisions(r, lin, 0); !reflect.DeepEqual(got, []Decision{{What: "order", Prefix: 0, Then: []int{s4}, Select: -1}}) {
		t.Errorf("reorder at 0: %+v", got)
	}
	// r1 got s3's value; s4 could have been first: admit s4, then r1.
	if got := MatchDecisions(r, lin, r1); !reflect.DeepEqual(got, []Decision{{What: "match", Prefix: 0, Then: []int{s4, r1}, Select: -1}}) {
		t.Errorf("match of r1: %+v", got)
	}
	// r2 got s4's value; the only other send, s3, is already in the prefix before s4.
	if got := MatchDecisions(r, lin, r2); len(got) != 0 {
		t.Errorf("match of r2: %+v", got)
	}
	// validDecision refuses to admit an event twice or before its prerequisites.
	if validDecision(r, lin, Decision{Prefix: 1, Then: []int{s3}}) == nil {
		t.Error("admitting s3 twice was accepted")
	}
	if validDecision(r, lin, Decision{Prefix: 0, Then: []int{r1, s3}}) == nil {
		t.Error("r1 before s3, which happens before it, was accepted")
	}
}

func TestSelectDecisions(t *testing.T) {
	r := gfuzzRun(5)
	r.Prepare()
	lin := linear(r)
	sel := -1
	for _, i := range lin {
		if r.Trace.Events[i].Kind == trace.KindSelect {
			sel = i
		}
	}
	got := SelectDecisions(r, lin, sel)
	if len(got) != 1 || got[0].Case != 0 || got[0].Select != sel || !reflect.DeepEqual(got[0].Then, []int{sel}) {
		t.Fatalf("select decisions %+v", got)
	}
	if n := decisionNote(r, lin, got[0]); n != "replay "+fmt.Sprint(got[0].Prefix)+" operations, then 1 Select x_test.go:40#1 takes case 1 in the runtime's order instead of case 2 in the runtime's order" {
		t.Errorf("note %q", n)
	}
	// The schedule replays up to the select and prefers case 0 (<-a) on its first execution.
	s := orderSchedule(r, append(lin[:got[0].Prefix:got[0].Prefix], sel), map[int]int{sel: 0}, DefaultOrderWindow, DefaultSelectWindow)
	if len(s.Selects) != 1 || s.Selects[0].Pos != pos(40) || !reflect.DeepEqual(s.Selects[0].Cases, []int{0}) {
		t.Errorf("selects %+v", s.Selects)
	}
	if ops := s.Order.Ops; len(ops) == 0 || ops[len(ops)-1].Kind != trace.KindSelect {
		t.Errorf("order does not end with the select: %v", ops)
	}
}

func TestPrefixEnergy(t *testing.T) {
	p := NewPrefix(1, nil)
	muts := p.Next(channelRun(0, 0, 0, 0))
	if len(muts) == 0 {
		t.Fatal("a new signature produced no mutations")
	}
	for _, m := range muts {
		if m.Schedule.Order == nil || len(m.Schedule.Order.Ops) == 0 {
			t.Errorf("prefix mutation without an order: %+v", m.Schedule)
		}
	}
	if again := p.Next(channelRun(0, 5, 5, 5)); len(again) != 0 {
		t.Errorf("a known signature from a free run produced %d mutations", len(again))
	}
	parent := muts[0].Key
	child := channelRun(1, 0, 0, 0) // the mutation found the swapped execution
	child.Origin = parent
	grandMuts := p.Next(child)
	if p.Energy(parent) != 1 || len(grandMuts) == 0 {
		t.Fatalf("energy of the parent %d, %d mutations", p.Energy(parent), len(grandMuts))
	}
	grandchild := channelRun(2, 0, 0, 0) // and its mutation found another one
	grandchild.Origin = grandMuts[0].Key
	p.Next(grandchild)
	if p.Energy(parent) != 2 || p.Energy(grandMuts[0].Key) != 1 {
		t.Errorf("energies after a grandchild's find: parent %d, child %d; want 2 and 1", p.Energy(parent), p.Energy(grandMuts[0].Key))
	}
	// A known signature from a prefix with energy 2 still earns min(2, PerRun) = 2 mutations
	// (dedup off: this run's decisions were all proposed already).
	p.MaxQueued = 100
	known := channelRun(1, 0, 0, 0)
	known.Origin = parent
	if n := len(p.Next(known)); n != 2 {
		t.Errorf("a prefix with energy 2 got %d mutations, want 2", n)
	}
	if p.Coverage.Len() != 3 {
		t.Errorf("coverage %d, want 3", p.Coverage.Len())
	}
}

func TestIncompleteTracesAreNotReplayed(t *testing.T) {
	r := channelRun(0, 0, 0, 0)
	r.Trace.Meta["dropped"] = "12"
	if m := NewPrefix(1, nil).Next(r); len(m) != 0 {
		t.Errorf("prefix replays an incomplete trace: %d mutations", len(m))
	}
	if m := NewGoPie(1).Next(r); len(m) != 0 {
		t.Errorf("gopie replays an incomplete trace: %d mutations", len(m))
	}
	r2 := channelRun(0, 0, 0, 0)
	r2.Trace.Meta["dropped"] = "0"
	if m := NewPrefix(1, nil).Next(r2); len(m) == 0 {
		t.Error("dropped=0 treated as incomplete")
	}
}
