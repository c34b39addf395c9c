package mutate

import (
	"reflect"
	"strings"
	"testing"
	"time"

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

// Pairs between different code come first, sibling goroutines' identical operations last,
// and a pair with a loop's operation after one without.
func TestFlowRanksPairs(t *testing.T) {
	const mu = 6
	b := newBuilder()
	b.spawn(2, 3, 5) // 3 and 4: siblings started at line 5
	b.spawn(2, 4, 5)
	b.spawn(2, 5, 7) // 5 runs the siblings' code, started elsewhere
	b.spawn(2, 6, 8)
	b.spawn(2, 7, 9)
	sib3 := b.op(3, trace.KindLock, mu, 21)
	sib4 := b.op(4, trace.KindLock, mu, 21)
	other5 := b.op(5, trace.KindLock, mu, 21)
	var poll []int
	for range 3 {
		poll = append(poll, b.op(6, trace.KindLock, mu, 40))
	}
	single7 := b.op(7, trace.KindLock, mu, 41)
	distinct := b.op(2, trace.KindLock, mu, 50)
	r := b.run()
	pairs := []FlowPair{
		{sib3, sib4},        // siblings: last
		{poll[2], single7},  // a poll: after the plain pairs of different code
		{sib3, other5},      // same position, different start: after different code
		{poll[1], single7},  // same positions as the other poll pair: kept with it, earliest first
		{single7, distinct}, // different code, no loop: first
		{other5, distinct},  // different code: first, in the order found
	}
	got := rankPairs(r.Trace, pairs, siteStats(r.Trace))
	want := []FlowPair{{single7, distinct}, {other5, distinct}, {poll[1], single7}, {poll[2], single7}, {sib3, other5}, {sib3, sib4}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ranked %v, want %v", got, want)
	}
}

// A pair whose first operation is a later iteration of a loop is preceded by the delay of
// the loop's first iteration.
func TestFlowDelaysLoopFromItsStart(t *testing.T) {
	const ch = 9
	b := newBuilder()
	b.spawn(2, 3, 5)
	b.spawn(2, 4, 6)
	var sends []int
	for k := range 3 {
		sends = append(sends, b.send(3, ch, 22, uint64(k+1), 1, 2))
	}
	other := b.send(4, ch, 27, 4, 2, 2)
	r := b.run()
	r.FlowPairs = []FlowPair{{sends[2], other}}
	muts := NewFlow().Next(r)
	var notes []string
	for _, m := range muts {
		notes = append(notes, m.Note)
	}
	want := []string{
		"delay 1.1 ChanSend x_test.go:22#1 until 1.2 ChanSend x_test.go:27#1",
		"delay 1.1 ChanSend x_test.go:22#3 until 1.2 ChanSend x_test.go:27#1",
	}
	if !reflect.DeepEqual(notes, want) {
		t.Errorf("delays %q, want %q", notes, want)
	}
}

// A delay proposed again (a later run shows the same pair) gets a key of its own, or the
// campaign, which runs a key once, would drop the retry.
func TestFlowRetryHasItsOwnKey(t *testing.T) {
	r, _ := flowRun()
	f := NewFlow()
	first, again := f.Next(r), f.Next(r)
	if len(first) == 0 || len(again) != len(first) {
		t.Fatalf("%d then %d mutations", len(first), len(again))
	}
	if first[0].Key == again[0].Key {
		t.Errorf("retry has the key of the first attempt: %s", first[0].Key)
	}
	if !reflect.DeepEqual(first[0].Schedule, again[0].Schedule) {
		t.Errorf("retry steers differently: %+v vs %+v", first[0].Schedule, again[0].Schedule)
	}
	if want := first[0].Note + " (attempt 2)"; again[0].Note != want {
		t.Errorf("retry note %q, want %q", again[0].Note, want)
	}
}

// Several later iterations of one loop paired with one operation give the loop-start delay
// once, not once per iteration (which would also spend the delay's retries at once).
func TestFlowLoopStartOnce(t *testing.T) {
	const ch = 9
	b := newBuilder()
	b.spawn(2, 3, 5)
	b.spawn(2, 4, 6)
	var sends []int
	for k := range 4 {
		sends = append(sends, b.send(3, ch, 22, uint64(k+1), 1, 2))
	}
	other := b.send(4, ch, 27, 5, 2, 2)
	r := b.run()
	r.FlowPairs = []FlowPair{{sends[3], other}, {sends[2], other}, {sends[1], other}}
	var notes []string
	for _, m := range NewFlow().Next(r) {
		notes = append(notes, m.Note)
	}
	want := []string{
		"delay 1.1 ChanSend x_test.go:22#1 until 1.2 ChanSend x_test.go:27#1",
		"delay 1.1 ChanSend x_test.go:22#2 until 1.2 ChanSend x_test.go:27#1", // earliest first
		"delay 1.1 ChanSend x_test.go:22#3 until 1.2 ChanSend x_test.go:27#1",
		"delay 1.1 ChanSend x_test.go:22#4 until 1.2 ChanSend x_test.go:27#1",
	}
	if !reflect.DeepEqual(notes, want) {
		t.Errorf("delays %q\nwant %q", notes, want)
	}
}

// Delays an earlier campaign ran (Run.Proposed) are skipped without using up the per-run
// limit or turning into retries.
func TestFlowSkipsDelaysProposedBefore(t *testing.T) {
	r, _ := flowRun()
	all := NewFlow().Next(r)
	if len(all) < 2 {
		t.Fatalf("%d mutations", len(all))
	}
	r.Proposed = func(key string) bool { return key == all[0].Key }
	f := NewFlow()
	f.MaxPerRun = len(all) - 1
	got := f.Next(r)
	if len(got) != len(all)-1 || got[0].Key != all[1].Key {
		t.Errorf("got %d mutations starting %q, want the %d others starting %q", len(got), got[0].Key, len(all)-1, all[1].Key)
	}
	for _, m := range f.Next(r) {
		if strings.HasPrefix(m.Key, all[0].Key) {
			t.Errorf("the delay run before came back as %s (%s)", m.Key, m.Note)
		}
	}
}

// A delay of a Lock until the other goroutine's Lock, which that goroutine reaches only
// after a 100 ms sleep (begun before the first Lock was requested): the window covers the
// sleep. With the default 50 ms window the delay ended before the other Lock came.
func TestFlowWindowCoversTheSleep(t *testing.T) {
	const mu = 6
	b := newBuilder()
	b.spawn(2, 3, 5)
	sleepAt := b.stamp + 1
	b.stamp++ // the test goroutine's sleep begins here
	first := b.op(3, trace.KindLock, mu, 21)
	unlock := b.op(3, trace.KindUnlock, mu, 22)
	second := b.op(2, trace.KindLock, mu, 33)
	b.hb(unlock, second)
	b.t.Timed = []trace.Timed{
		{Kind: trace.KindTimedWait, Aux: trace.WaitSleep, G: 2, Pos: 32, Stamp: sleepAt, Dur: 100 * time.Millisecond},
		// another goroutine's sleep, and one of the test's after the second Lock: not counted
		{Kind: trace.KindTimedWait, Aux: trace.WaitSleep, G: 3, Pos: 23, Stamp: sleepAt, Dur: time.Second},
		{Kind: trace.KindTimedWait, Aux: trace.WaitSleep, G: 2, Pos: 34, Stamp: b.stamp + 1, Dur: time.Second},
	}
	r := b.run()
	var got *schedule.Delay
	for _, m := range NewFlow().Next(r) {
		if d := m.Schedule.Delays[0]; d.Op == r.Names.Ops[first] && d.Until == r.Names.Ops[second] {
			got = &d
		}
	}
	if got == nil {
		t.Fatal("no delay of the first Lock until the second")
	}
	if want := 100*time.Millisecond + 50*time.Millisecond + DefaultDelayWindow; got.Window != want {
		t.Errorf("window %v, want %v (the 100 ms sleep, half again, and the default)", got.Window, want)
	}
}
