package mutate

import (
	"reflect"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/schedule"
)

func claim(kind string, roleLines ...any) Claim {
	c := Claim{Kind: kind}
	for k := 0; k+1 < len(roleLines); k += 2 {
		c.Positions = append(c.Positions, ClaimPos{Role: roleLines[k].(string), Pos: pos(roleLines[k+1].(int))})
	}
	return c
}

// order returns the ops of s's order.
func orderOf(t *testing.T, s *schedule.Schedule) []schedule.OpID {
	t.Helper()
	if s == nil || s.Order == nil {
		t.Fatalf("schedule %+v has no order", s)
	}
	return s.Order.Ops
}

func TestMustHappenBefore(t *testing.T) {
	b := newBuilder()
	add := b.add(trace.Event{Kind: trace.KindWgAdd, G: 2, Obj: 9, Pos: 5, A: 1})
	b.spawn(2, 3, 6)
	lock2 := b.op(2, trace.KindLock, 7, 8)
	unlock2 := b.op(2, trace.KindUnlock, 7, 9)
	lock3 := b.op(3, trace.KindLock, 7, 20)
	send := b.send(3, 5, 21, 1, 1, 4)
	done := b.add(trace.Event{Kind: trace.KindWgDone, G: 3, Obj: 9, Pos: 22, A: ^uint64(0)})
	recv := b.recv(2, 5, 10, 1)
	cl := b.op(3, trace.KindChanClose, 5, 23)
	closedRecv := b.add(trace.Event{Kind: trace.KindChanRecv, G: 2, Obj: 5, Pos: 11, Flags: trace.FlagClosed})
	wait := b.op(2, trace.KindWgWait, 9, 12)
	hb := MustHappenBefore(b.t)
	for _, c := range []struct {
		name string
		a, b int
		want bool
	}{
		{"program order", lock2, unlock2, true},
		{"spawn", add, lock3, true},
		{"no edge from a mutex", unlock2, lock3, false},
		{"send before the receive of its value", send, recv, true},
		{"close before the receive it woke", cl, closedRecv, true},
		{"Done before the Wait that returned", done, wait, true},
		{"no edge from an Add to a Done", add, done, true}, // through the spawn, not the WaitGroup
		{"no edge backwards", recv, send, false},
	} {
		if got := hb.HappensBefore(c.a, c.b); got != c.want {
			t.Errorf("%s: HappensBefore(%d, %d) = %v, want %v", c.name, c.a, c.b, got, c.want)
		}
	}
	if !hb.Concurrent(lock2, lock3) {
		t.Error("two acquisitions of a mutex are ordered by the mutex alone")
	}
}

func TestConfirmSendOnClosed(t *testing.T) {
	b := newBuilder()
	b.add(trace.Event{Kind: trace.KindChanMake, G: 2, Obj: 5, Pos: 4, A: 8})
	b.spawn(2, 3, 5)
	send := b.send(3, 5, 19, 1, 1, 8)
	cl := b.op(2, trace.KindChanClose, 5, 25)
	b.recv(2, 5, 30, 1)
	r := b.run()
	rws, err := Confirm(r, claim("send-on-closed", "send", 19, "close", 25))
	if err != nil {
		t.Fatal(err)
	}
	want := []schedule.OpID{r.Names.Ops[cl], r.Names.Ops[send]}
	if got := orderOf(t, rws[0].Schedule); !reflect.DeepEqual(got, want) {
		t.Errorf("order %v, want the close then the send %v", got, want)
	}
	if !strings.Contains(rws[0].Note, "ChanClose") {
		t.Errorf("note %q", rws[0].Note)
	}
}

func TestConfirmRecvOnClosedDropsTheValueEdge(t *testing.T) {
	b := newBuilder()
	b.spawn(2, 3, 5)                           // flush
	b.spawn(2, 4, 6)                           // close hook
	lk := b.op(3, trace.KindLock, 7, 22)       // flush's critical section
	b.send(3, 5, 25, 1, 1, 1)                  // the value
	b.op(3, trace.KindUnlock, 7, 26)           //
	recv := b.recv(2, 5, 46, 1)                // got the value
	hookLock := b.op(4, trace.KindLock, 7, 30) //
	cl := b.op(4, trace.KindChanClose, 5, 33)  //
	b.op(4, trace.KindUnlock, 7, 34)           //
	r := b.run()
	rws, err := Confirm(r, claim("recv-on-closed", "receive", 46, "close", 33))
	if err != nil {
		t.Fatal(err)
	}
	want := []schedule.OpID{r.Names.Ops[hookLock], r.Names.Ops[cl], r.Names.Ops[recv]}
	if got := orderOf(t, rws[0].Schedule); !reflect.DeepEqual(got, want) {
		t.Errorf("order %v, want %v (flush's lock %v must not come first)", got, want, r.Names.Ops[lk])
	}
}

func TestConfirmNegativeWaitGroup(t *testing.T) {
	b := newBuilder()
	b.spawn(2, 3, 19)
	add1 := b.add(trace.Event{Kind: trace.KindWgAdd, G: 2, Obj: 9, Pos: 23, A: 1})
	b.spawn(2, 4, 19)
	b.add(trace.Event{Kind: trace.KindWgAdd, G: 2, Obj: 9, Pos: 23, A: 1})
	done3 := b.add(trace.Event{Kind: trace.KindWgDone, G: 3, Obj: 9, Pos: 21, A: ^uint64(0)})
	b.add(trace.Event{Kind: trace.KindWgDone, G: 4, Obj: 9, Pos: 21, A: ^uint64(0)})
	b.op(2, trace.KindWgWait, 9, 25)
	r := b.run()
	rws, err := Confirm(r, claim("negative-waitgroup", "done", 21, "add", 23))
	if err != nil {
		t.Fatal(err)
	}
	// Only the first worker's Done can come at counter zero: the second is spawned after
	// the first Add.
	if len(rws) != 1 {
		t.Fatalf("%d rewrites, want 1: %+v", len(rws), rws)
	}
	want := []schedule.OpID{r.Names.Ops[done3], r.Names.Ops[add1]}
	if got := orderOf(t, rws[0].Schedule); !reflect.DeepEqual(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

func TestConfirmLockCycle(t *testing.T) {
	b := newBuilder()
	b.spawn(2, 3, 30)
	a1 := b.op(3, trace.KindLock, 1, 19) // 3 locks a then b
	a2 := b.op(3, trace.KindLock, 2, 21)
	b.op(3, trace.KindUnlock, 2, 24)
	b.op(3, trace.KindUnlock, 1, 24)
	b1 := b.op(2, trace.KindLock, 2, 19) // the test goroutine locks b then a
	b2 := b.op(2, trace.KindLock, 1, 21)
	b.op(2, trace.KindUnlock, 1, 24)
	b.op(2, trace.KindUnlock, 2, 24)
	r := b.run()
	rws, err := Confirm(r, claim("cyclic-deadlock", "lock", 21, "held lock", 19, "held lock", 19, "lock", 21))
	if err != nil {
		t.Fatal(err)
	}
	if len(rws) != 2 {
		t.Fatalf("%d rewrites, want one per goroutine going first", len(rws))
	}
	n := r.Names.Ops
	want := []schedule.OpID{n[a1], n[b1], n[a2], n[b2]}
	if got := orderOf(t, rws[0].Schedule); !reflect.DeepEqual(got, want) {
		t.Errorf("order %v, want each goroutine's first lock, then the second ones %v", got, want)
	}
}

// A cycle of three goroutines has no two-lock rewrite: Confirm says so at once, without
// pairing the acquisitions at its positions.
func TestConfirmLongLockCycle(t *testing.T) {
	b := newBuilder()
	b.spawn(2, 3, 30)
	b.spawn(2, 4, 31)
	for k, g := range []uint64{2, 3, 4} {
		b.op(g, trace.KindLock, uint64(k+1), 19)
		b.op(g, trace.KindLock, uint64((k+1)%3+1), 21)
		b.op(g, trace.KindUnlock, uint64((k+1)%3+1), 24)
		b.op(g, trace.KindUnlock, uint64(k+1), 24)
	}
	_, err := Confirm(b.run(), claim("cyclic-deadlock", "lock", 21, "held lock", 19, "held lock", 19, "lock", 21, "held lock", 19, "lock", 21))
	if err == nil || !strings.Contains(err.Error(), "lock cycle of 3 goroutines") {
		t.Errorf("error %v, want no rewrite for a cycle of 3", err)
	}
}

func TestConfirmReadLockRecursion(t *testing.T) {
	b := newBuilder()
	b.spawn(2, 3, 40)
	outer := b.add(trace.Event{Kind: trace.KindRLock, G: 2, Obj: 1, Pos: 25})
	inner := b.add(trace.Event{Kind: trace.KindRLock, G: 2, Obj: 1, Pos: 19})
	b.add(trace.Event{Kind: trace.KindRUnlock, G: 2, Obj: 1, Pos: 20})
	b.add(trace.Event{Kind: trace.KindRUnlock, G: 2, Obj: 1, Pos: 26})
	w := b.add(trace.Event{Kind: trace.KindLock, G: 3, Obj: 1, Pos: 34, Flags: trace.FlagRW})
	r := b.run()
	rws, err := Confirm(r, claim("cyclic-deadlock", "lock", 19, "writer lock", 34, "held lock", 25))
	if err != nil {
		t.Fatal(err)
	}
	n := r.Names.Ops
	if got, want := orderOf(t, rws[0].Schedule), []schedule.OpID{n[outer], n[w], n[inner]}; !reflect.DeepEqual(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

func TestConfirmMixedDeadlock(t *testing.T) {
	b := newBuilder()
	b.spawn(2, 3, 40)
	sub := b.op(3, trace.KindLock, 1, 28)
	b.op(3, trace.KindUnlock, 1, 29)
	held := b.op(2, trace.KindLock, 1, 21)
	b.send(2, 5, 23, 1, 0, 0)
	b.recv(3, 5, 38, 1)
	b.op(2, trace.KindUnlock, 1, 24)
	r := b.run()
	rws, err := Confirm(r, claim("mixed-deadlock", "channel operation", 23, "partner's lock", 28, "held lock", 21, "partner", 38))
	if err != nil {
		t.Fatal(err)
	}
	n := r.Names.Ops
	if got, want := orderOf(t, rws[0].Schedule), []schedule.OpID{n[held], n[sub]}; !reflect.DeepEqual(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

func TestConfirmRejects(t *testing.T) {
	b := newBuilder()
	b.spawn(2, 3, 5)
	send := b.send(3, 5, 19, 1, 1, 8)
	b.recv(2, 5, 20, 1)
	b.op(2, trace.KindChanClose, 5, 25)
	r := b.run()
	if _, err := Confirm(r, claim("leak-chan", "blocked", 19)); err == nil || !strings.Contains(err.Error(), "no rewrite") {
		t.Errorf("a leak: %v", err)
	}
	if _, err := Confirm(r, claim("send-on-closed", "send", 77, "close", 25)); err == nil {
		t.Error("a claim on a line with no operation was accepted")
	}
	// The close follows the receive of the sent value: it cannot come before the send.
	if _, err := Confirm(r, claim("send-on-closed", "send", 19, "close", 25)); err == nil {
		t.Errorf("a close that must follow the send (%d) was put before it", send)
	}
	b.t.Meta["dropped"] = "3"
	if _, err := Confirm(b.run(), claim("send-on-closed", "send", 19, "close", 25)); err == nil {
		t.Error("a trace that lost events was rewritten")
	}
}

// A worker Adds to a zero counter, then takes a lock that the test goroutine takes before
// its Wait: the lock is no must-order. First the Add held until the Wait comes, then the
// order that admits the Wait, then the Add.
func TestConfirmAddWait(t *testing.T) {
	b := newBuilder()
	b.spawn(2, 3, 19)
	add := b.add(trace.Event{Kind: trace.KindWgAdd, G: 3, Obj: 9, Pos: 20, A: 1, B: 1})
	b.op(3, trace.KindLock, 7, 21)
	b.op(3, trace.KindUnlock, 7, 22)
	b.op(2, trace.KindLock, 7, 30)
	b.op(2, trace.KindUnlock, 7, 31)
	wait := b.op(2, trace.KindWgWait, 9, 32)
	b.add(trace.Event{Kind: trace.KindWgDone, G: 3, Obj: 9, Pos: 24, A: ^uint64(0)})
	r := b.run()
	rws, err := Confirm(r, claim("data-race", "add", 20, "wait", 32))
	if err != nil {
		t.Fatal(err)
	}
	if len(rws) != 2 {
		t.Fatalf("%d rewrites, want the hold and the order: %+v", len(rws), rws)
	}
	if d := rws[0].Schedule.Delays; len(d) != 1 || d[0].Op != r.Names.Ops[add] || d[0].Until != r.Names.Ops[wait] || rws[0].Schedule.Order != nil {
		t.Errorf("first rewrite %+v, want only the Add %v held until the Wait %v", rws[0].Schedule, r.Names.Ops[add], r.Names.Ops[wait])
	}
	got := orderOf(t, rws[1].Schedule)
	if n := len(got); n < 2 || got[n-2] != r.Names.Ops[wait] || got[n-1] != r.Names.Ops[add] {
		t.Errorf("order %v, want it to end with the Wait %v, then the Add %v", got, r.Names.Ops[wait], r.Names.Ops[add])
	}
}

// prometheus/client_golang's summary (cmd/goweave/testdata/handofflock): each observer
// locks buf (line 27), then mtx (37), and hands mtx to a flusher it starts (40), which
// unlocks it (46) after the observer's next Lock of buf. The observer does not hold mtx
// at that Lock (the flusher does), so no schedule of the run makes the cycle.
func TestConfirmLockCycleHandedOff(t *testing.T) {
	b := newBuilder()
	b.spawn(2, 3, 10)
	b.spawn(2, 4, 10)
	for k, g := range []uint64{3, 4} {
		flusher := uint64(5 + k)
		b.op(g, trace.KindLock, 1, 27)
		b.op(g, trace.KindLock, 2, 37)
		b.spawn(g, flusher, 40)
		b.op(g, trace.KindUnlock, 1, 28)
		b.op(g, trace.KindLock, 1, 27)
		b.op(g, trace.KindUnlock, 1, 28)
		b.op(flusher, trace.KindUnlock, 2, 46)
	}
	rws, err := Confirm(b.run(), claim("cyclic-deadlock", "lock", 27, "held lock", 37, "held lock", 27, "lock", 37))
	if err == nil {
		t.Errorf("rewrites %v, want none: mtx is handed off, not held by its locker", rws)
	}
}

// Thousands of acquisitions at a cycle's positions (a hot lock pair in a long test):
// the search for two-lock chains is bounded and the claim says it was cut.
func TestConfirmLockCycleSearchCut(t *testing.T) {
	b := newBuilder()
	b.spawn(2, 3, 30)
	for range 300 {
		for k, g := range []uint64{2, 3} {
			first, second := uint64(1+k), uint64(2-k)
			b.op(g, trace.KindLock, first, 19)
			b.op(g, trace.KindLock, second, 21)
			b.op(g, trace.KindUnlock, second, 24)
			b.op(g, trace.KindUnlock, first, 24)
		}
	}
	// Confirm orders by its own must-happen-before: no closure of the builder's (cubic)
	run := &Run{Trace: b.t, SelectPartners: map[int][]int{}}
	rws, err := Confirm(run, claim("cyclic-deadlock", "lock", 21, "held lock", 19, "held lock", 19, "lock", 21))
	said := err != nil && strings.Contains(err.Error(), "search cut")
	for _, rw := range rws {
		said = said || strings.Contains(rw.Note, "search cut")
	}
	if !said {
		t.Errorf("rewrites %d, error %v: want the cut search said", len(rws), err)
	}
}
