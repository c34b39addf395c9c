package mutate

import (
	"reflect"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/schedule"
)

func TestReplay(t *testing.T) {
	r := gfuzzRun(3)
	s := Replay(r, 0)
	lin := linear(r)
	if s.Order == nil || len(s.Order.Ops) != len(lin) {
		t.Fatalf("replay order %+v, want %d ops", s.Order, len(lin))
	}
	for k, e := range lin {
		if s.Order.Ops[k] != r.Names.Ops[e] {
			t.Errorf("op %d = %v, want %v", k, s.Order.Ops[k], r.Names.Ops[e])
		}
	}
	// The select is pinned to its recorded case, 1.
	if want := []schedule.SelectPreference{{Pos: pos(40), Window: DefaultSelectWindow, Cases: []int{1}}}; !reflect.DeepEqual(s.Selects, want) {
		t.Errorf("selects %+v", s.Selects)
	}
	if p := Replay(r, 2); len(p.Order.Ops) != 2 || p.Selects != nil {
		t.Errorf("partial replay %+v", p)
	}
}

// The Do that ran f is replayed first, even when a Do that found the Once done returned
// before it (the recorded run that found the winner descheduled between done and return).
func TestReplayAdmitsTheOnceWinnerFirst(t *testing.T) {
	const once = 7
	b := newBuilder()
	b.spawn(2, 3, 5)
	b.spawn(2, 4, 6)
	winner := b.add(trace.Event{Kind: trace.KindOnceDo, G: 3, Obj: once, Pos: 20, Flags: trace.FlagSuccess, Pre: 10, Post: 13})
	late := b.add(trace.Event{Kind: trace.KindOnceDo, G: 4, Obj: once, Pos: 20, Pre: 11, Post: 12})
	b.hb(winner, late)
	r := b.run()
	s := Replay(r, 0)
	var order []schedule.OpID
	for _, op := range s.Order.Ops {
		if op.Kind == trace.KindOnceDo {
			order = append(order, op)
		}
	}
	if want := []schedule.OpID{r.Names.Ops[winner], r.Names.Ops[late]}; !reflect.DeepEqual(order, want) {
		t.Errorf("Once.Do order %v, want the winner first: %v", order, want)
	}
}

func TestReorder(t *testing.T) {
	r, s3, s4, r1, _ := sendsRun()
	s, err := Reorder(r, []int{s4, s3})
	if err != nil {
		t.Fatal(err)
	}
	if want := []schedule.OpID{r.Names.Ops[s4], r.Names.Ops[s3]}; !reflect.DeepEqual(s.Order.Ops, want) {
		t.Errorf("order %v, want %v", s.Order.Ops, want)
	}
	if _, err := Reorder(r, []int{r1, s3}); err == nil {
		t.Error("a receive before the send it needs was accepted")
	}
	if _, err := Reorder(r, []int{0}); err == nil {
		t.Error("a spawn was accepted")
	}
}

// Proposals after the run's deadline come too late to run: no strategy makes any (the
// same run with a deadline ahead gets proposals, so the check is not vacuous).
func TestNoProposalsAfterTheDeadline(t *testing.T) {
	before := 0
	for _, name := range Names {
		for _, deadline := range []time.Time{time.Now().Add(-time.Second), time.Now().Add(time.Hour)} {
			st, err := New(name, 1)
			if err != nil {
				t.Fatal(err)
			}
			r := gfuzzRun(3)
			r.Deadline = deadline
			n := len(st.Next(r))
			if deadline.Before(time.Now()) && n != 0 {
				t.Errorf("%s proposed %d mutations after the deadline", name, n)
			}
			if deadline.After(time.Now()) {
				before += n
			}
		}
	}
	if before == 0 {
		t.Error("no strategy proposed anything before the deadline either")
	}
}
