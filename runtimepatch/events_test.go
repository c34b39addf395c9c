package runtimepatch

import (
	"slices"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
)

// These tests run programs of testdata/events built with the overlay and check
// the recorded events exactly: kinds, positions, objects, values, flags and
// the stamp order FORMAT.md promises.

func TestChanUnbufferedEvents(t *testing.T) {
	tr := record(t, buildEvents(t, false), "TestChanUnbuffered", nil).tr
	mk := one(t, tr, trace.KindChanMake, "unbuf.make")
	spawn := one(t, tr, trace.KindGoSpawn, "unbuf.spawn")
	send := one(t, tr, trace.KindChanSend, "unbuf.send")
	recv := one(t, tr, trace.KindChanRecv, "unbuf.recv")
	cl := one(t, tr, trace.KindChanClose, "unbuf.close")
	closedRecv := one(t, tr, trace.KindChanRecv, "unbuf.recvclosed")

	if mk.A != 0 || mk.G != spawn.G {
		t.Errorf("make: capacity %d by g%d, want 0 by the test goroutine g%d", mk.A, mk.G, spawn.G)
	}
	if spawn.A != send.G || spawn.A == spawn.G {
		t.Errorf("spawn: child g%d, but the send ran on g%d", spawn.A, send.G)
	}
	if spawn.Post >= send.Pre {
		t.Errorf("spawn stamp %d not before the child's first event %d", spawn.Post, send.Pre)
	}
	for _, e := range []trace.Event{send, recv} {
		if e.Obj != mk.Obj || e.A != 1 || e.C != 0 || e.Post == 0 {
			t.Errorf("%s: obj %d seq %d cap %d post %d, want obj %d seq 1 cap 0 completed", e.Kind, e.Obj, e.A, e.C, e.Post, mk.Obj)
		}
	}
	if recv.G != spawn.G || recv.Flags != trace.FlagValueUsed {
		t.Errorf("recv: g%d flags %s, want g%d valueused", recv.G, recv.Flags, spawn.G)
	}
	if send.Flags != 0 {
		t.Errorf("send flags %s, want none", send.Flags)
	}
	if !(send.Post < recv.Post) {
		t.Errorf("send post %d not before receive post %d", send.Post, recv.Post)
	}
	if closedRecv.Obj != cl.Obj || closedRecv.Flags != trace.FlagClosed || closedRecv.A != 0 {
		t.Errorf("receive from closed: obj %d flags %s seq %d, want obj %d closed seq 0", closedRecv.Obj, closedRecv.Flags, closedRecv.A, cl.Obj)
	}
	if !(cl.Post < closedRecv.Post) {
		t.Errorf("close post %d not before the receive it released %d", cl.Post, closedRecv.Post)
	}
	ends := 0
	for _, e := range tr.Events {
		if e.Kind == trace.KindGoEnd && e.G == send.G {
			ends++
		}
	}
	if ends != 1 {
		t.Errorf("%d GoEnd events for the child, want 1", ends)
	}
}

func TestChanBufferedEvents(t *testing.T) {
	tr := record(t, buildEvents(t, false), "TestChanBuffered", nil).tr
	mk := one(t, tr, trace.KindChanMake, "buf.make")
	sends := []trace.Event{one(t, tr, trace.KindChanSend, "buf.send1"), one(t, tr, trace.KindChanSend, "buf.send2")}
	recvs := at(t, tr, trace.KindChanRecv, "buf.range")
	if mk.A != 2 {
		t.Errorf("make: capacity %d, want 2", mk.A)
	}
	for i, s := range sends {
		if s.A != uint64(i+1) || s.B != uint64(i+1) || s.C != 2 {
			t.Errorf("send %d: seq %d fill %d cap %d, want %d %d 2", i+1, s.A, s.B, s.C, i+1, i+1)
		}
	}
	if len(recvs) != 3 {
		t.Fatalf("%d receives of the range loop, want 3\n%s", len(recvs), dump(tr))
	}
	for i, r := range recvs[:2] {
		if r.A != uint64(i+1) || r.B != uint64(1-i) || !r.Flags.Has(trace.FlagCommaOK) || r.Flags.Has(trace.FlagClosed) {
			t.Errorf("receive %d: seq %d fill %d flags %s, want seq %d fill %d commaok", i+1, r.A, r.B, r.Flags, i+1, 1-i)
		}
		if !(sends[i].Post < r.Post) {
			t.Errorf("receive %d post %d not after send %d post %d", i+1, r.Post, i+1, sends[i].Post)
		}
	}
	if last := recvs[2]; last.A != 0 || !last.Flags.Has(trace.FlagClosed|trace.FlagCommaOK) {
		t.Errorf("final receive: seq %d flags %s, want 0 closed|commaok", last.A, last.Flags)
	}
}

func TestCloseOfClosedEvents(t *testing.T) {
	tr := record(t, buildEvents(t, false), "TestCloseTwice", nil).tr
	if e := one(t, tr, trace.KindChanClose, "closetwice.close"); e.Flags != trace.FlagClosed || e.Post == 0 {
		t.Errorf("second close: flags %s post %d, want closed and completed", e.Flags, e.Post)
	}
}

func TestSelectEvents(t *testing.T) {
	tr := record(t, buildEvents(t, false), "TestSelect", nil).tr
	makes := at(t, tr, trace.KindChanMake, "select.make")
	if len(makes) != 3 {
		t.Fatalf("%d makes at @select.make, want 3", len(makes))
	}
	a, b, c := makes[0].Obj, makes[1].Obj, makes[2].Obj

	sel := one(t, tr, trace.KindSelect, "select.recv4")
	wantCases := []trace.Case{{Index: 0, Obj: a}, {Index: 1, Obj: b, ValueUsed: true, Ready: true}, {Index: 2, Obj: c}, {Index: 3, Obj: 0}}
	if sel.Aux != 4 || len(sel.Cases) != 4 {
		t.Fatalf("select: %d cases, want 4", len(sel.Cases))
	}
	for i, want := range wantCases {
		if sel.Cases[i] != want {
			t.Errorf("case %d: %+v, want %+v", i, sel.Cases[i], want)
		}
	}
	if sel.A != 1 || sel.B != 1 || sel.Flags != trace.FlagSuccess || sel.Post == 0 {
		t.Errorf("select: chose %d seq %d flags %s, want case 1 (source order) seq 1 success", int64(sel.A), sel.B, sel.Flags)
	}

	def := one(t, tr, trace.KindSelect, "select.default")
	if def.A != trace.SelectDefault || def.Flags != trace.FlagNonBlocking || def.Post == 0 || len(def.Cases) != 2 {
		t.Errorf("select with default: chose %d flags %s post %d cases %d, want default nonblocking completed 2", int64(def.A), def.Flags, def.Post, len(def.Cases))
	}
	// Source order cannot be recovered when sends and receives mix: sends
	// come first (FORMAT.md).
	if len(def.Cases) == 2 && (!def.Cases[0].Send || def.Cases[1].Send) {
		t.Errorf("select with default: cases %+v, want the send then the receive", def.Cases)
	}

	nb := one(t, tr, trace.KindSelect, "select.nbsend")
	if nb.A != 0 || nb.Flags != trace.FlagNonBlocking|trace.FlagSuccess || len(nb.Cases) != 1 || !nb.Cases[0].Send || nb.Cases[0].Obj != c {
		t.Errorf("one-case select: chose %d flags %s cases %+v, want case 0, a send on chan %d", int64(nb.A), nb.Flags, nb.Cases, c)
	}

	nbc := one(t, tr, trace.KindSelect, "select.nbclosed")
	if nbc.A != 0 || !nbc.Flags.Has(trace.FlagClosed|trace.FlagSuccess) || nbc.Cases[0].Obj != a {
		t.Errorf("one-case select on closed chan: chose %d flags %s, want case 0 closed|success", int64(nbc.A), nbc.Flags)
	}
}

// A receive of a struct{} is recorded without FlagValueUsed, in a select case too: the
// zero value of a closed chan struct{} is the only value it ever carries.
func TestChanZeroSizeEvents(t *testing.T) {
	tr := record(t, buildEvents(t, false), "TestChanZeroSize", nil).tr
	if recv := one(t, tr, trace.KindChanRecv, "zerosize.recv"); recv.Flags.Has(trace.FlagValueUsed) {
		t.Errorf("receive of a struct{}: flags %s, want no valueused", recv.Flags)
	}
	sel := one(t, tr, trace.KindSelect, "zerosize.select")
	if len(sel.Cases) != 2 || sel.Cases[0].ValueUsed {
		t.Errorf("select case receiving a struct{}: %+v, want no ValueUsed", sel.Cases)
	}
}

// The cases ready when selectgo looked (SelectCase b = 1): a value buffered, a closed
// channel, room in a buffer, a parked sender; none for a select that parked.
func TestSelectReadyEvents(t *testing.T) {
	tr := record(t, buildEvents(t, false), "TestSelectReady", nil).tr
	for name, want := range map[string][]bool{
		"ready.four":   {true, true, true, false}, // space <- 1 first: sends come first
		"ready.sender": {true, false},
		"ready.none":   {false, false},
	} {
		sel := one(t, tr, trace.KindSelect, name)
		var got []bool
		for _, c := range sel.Cases {
			got = append(got, c.Ready)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: ready %v, want %v", name, got, want)
		}
	}
}

func TestSelectParkedEvents(t *testing.T) {
	tr := record(t, buildEvents(t, false), "TestSelectParked", nil).tr
	sel := one(t, tr, trace.KindSelect, "parked.select")
	send := one(t, tr, trace.KindChanSend, "parked.send")
	if sel.A != 1 || sel.B != 1 || sel.Cases[1].Obj != send.Obj {
		t.Errorf("select: chose %d seq %d, want case 1 (the channel sent on) seq 1", int64(sel.A), sel.B)
	}
	if !(send.Post < sel.Post) || send.A != 1 {
		t.Errorf("send post %d seq %d, select post %d: want send 1 completed first", send.Post, send.A, sel.Post)
	}
}

func TestLeakedGoroutineState(t *testing.T) {
	tr := record(t, buildEvents(t, false), "TestLeak", nil).tr
	recv := one(t, tr, trace.KindChanRecv, "leak.recv")
	if recv.Post != 0 {
		t.Errorf("leaked receive completed at %d", recv.Post)
	}
	// status 10 (_Gleaked): the exit flush's leak GC proved it
	// (docs/leak-detection.md); 4 (_Gwaiting) on a release without one.
	want := uint32(10)
	if !testdataRelease(t).LeakGC {
		want = 4
	}
	for _, g := range tr.Goroutines {
		if g.ID == recv.G {
			if g.Status != want || g.WaitReason != "chan receive" || g.LastEvent != recv.Index {
				t.Errorf("leaked goroutine: status %d reason %q last %d, want %d \"chan receive\" %d", g.Status, g.WaitReason, g.LastEvent, want, recv.Index)
			}
			return
		}
	}
	t.Errorf("leaked goroutine g%d missing from GOROUTINES\n%s", recv.G, dump(tr))
}

func TestNilChannelLeak(t *testing.T) {
	tr := record(t, buildEvents(t, false), "TestNilChanLeak", nil).tr
	send := one(t, tr, trace.KindChanSend, "nil.send")
	if send.Obj != 0 || send.Flags != trace.FlagNilChan || send.Post != 0 {
		t.Errorf("send on nil channel: obj %d flags %s post %d, want 0 nilchan 0", send.Obj, send.Flags, send.Post)
	}
	for _, g := range tr.Goroutines {
		if g.ID == send.G && g.WaitReason != "chan send (nil chan)" {
			t.Errorf("wait reason %q", g.WaitReason)
		}
	}
}

func TestTraceVariableHiddenFromProgram(t *testing.T) {
	if r := record(t, buildEvents(t, false), "TestTraceVariableHidden", nil); r.err != nil {
		t.Errorf("%v\n%s", r.err, r.output)
	}
}

func TestMutexEvents(t *testing.T) {
	tr := record(t, buildEvents(t, false), "TestMutex", nil).tr
	lock := one(t, tr, trace.KindLock, "mutex.lock")
	fail := one(t, tr, trace.KindTryLock, "mutex.tryfail")
	unlock := one(t, tr, trace.KindUnlock, "mutex.unlock")
	ok := one(t, tr, trace.KindTryLock, "mutex.tryok")
	deferred := one(t, tr, trace.KindUnlock, "mutex.defer")
	iface := one(t, tr, trace.KindLock, "mutex.iface")
	// Method values and promoted methods called through an interface go
	// through <autogenerated> wrappers.
	methodValue := one(t, tr, trace.KindLock, "mutex.methodvalue")
	if embedded := one(t, tr, trace.KindLock, "mutex.embedded"); embedded.Obj == lock.Obj {
		t.Errorf("the embedded mutex has the id of another mutex")
	}
	for _, e := range []trace.Event{fail, unlock, ok, deferred, iface, methodValue} {
		if e.Obj != lock.Obj {
			t.Errorf("%s at %s: object %d, want the mutex %d", e.Kind, tr.Position(e.Pos), e.Obj, lock.Obj)
		}
	}
	if lock.Obj == 0 || lock.Post <= lock.Pre {
		t.Errorf("lock: obj %d pre %d post %d", lock.Obj, lock.Pre, lock.Post)
	}
	if fail.Flags.Has(trace.FlagSuccess) || !ok.Flags.Has(trace.FlagSuccess) {
		t.Errorf("TryLock flags %s then %s, want failure then success", fail.Flags, ok.Flags)
	}
	if unlock.Pre != unlock.Post || !(unlock.Pre < ok.Post) {
		t.Errorf("unlock %d/%d must be stamped once, before the TryLock that follows it (%d)", unlock.Pre, unlock.Post, ok.Post)
	}
}

func TestRWMutexEvents(t *testing.T) {
	tr := record(t, buildEvents(t, false), "TestRWMutex", nil).tr
	rl := one(t, tr, trace.KindRLock, "rw.rlock")
	try := one(t, tr, trace.KindTryRLock, "rw.tryrlock")
	ru := one(t, tr, trace.KindRUnlock, "rw.runlock")
	l := one(t, tr, trace.KindLock, "rw.lock")
	u := one(t, tr, trace.KindUnlock, "rw.unlock")
	for _, e := range []trace.Event{try, ru, l, u} {
		if e.Obj != rl.Obj {
			t.Errorf("%s: object %d, want %d", e.Kind, e.Obj, rl.Obj)
		}
	}
	if !try.Flags.Has(trace.FlagSuccess) || !l.Flags.Has(trace.FlagRW) || !u.Flags.Has(trace.FlagRW) || rl.Flags != 0 {
		t.Errorf("flags: tryrlock %s lock %s unlock %s rlock %s", try.Flags, l.Flags, u.Flags, rl.Flags)
	}
	// The RWMutex's internal Mutex must not show up as a separate object.
	for _, e := range tr.Events {
		if (e.Kind == trace.KindLock || e.Kind == trace.KindUnlock) && e.Obj != rl.Obj {
			t.Errorf("extra %s on object %d at %s", e.Kind, e.Obj, tr.Position(e.Pos))
		}
	}
}

func TestOnceEvents(t *testing.T) {
	tr := record(t, buildEvents(t, false), "TestOnce", nil).tr
	first := one(t, tr, trace.KindOnceDo, "once.first")
	second := one(t, tr, trace.KindOnceDo, "once.second")
	if !first.Flags.Has(trace.FlagSuccess) || second.Flags.Has(trace.FlagSuccess) || first.Obj != second.Obj {
		t.Errorf("Once.Do flags %s then %s on %d/%d, want ran then not, same object", first.Flags, second.Flags, first.Obj, second.Obj)
	}
	if first.Post == 0 || !(first.Post < second.Pre) {
		t.Errorf("first Do post %d, second pre %d", first.Post, second.Pre)
	}
}

func TestWaitGroupEvents(t *testing.T) {
	tr := record(t, buildEvents(t, false), "TestWaitGroup", nil).tr
	add := one(t, tr, trace.KindWgAdd, "wg.add")
	dones := at(t, tr, trace.KindWgDone, "wg.done")
	wait := at(t, tr, trace.KindWgWait, "wg.wait")
	if int64(add.A) != 2 || int64(add.B) != 2 {
		t.Errorf("Add: delta %d counter %d, want 2 2", int64(add.A), int64(add.B))
	}
	if len(dones) != 2 || len(wait) != 1 {
		t.Fatalf("%d Done, %d Wait events\n%s", len(dones), len(wait), dump(tr))
	}
	counters := map[int64]bool{}
	for _, d := range dones {
		counters[int64(d.B)] = true
		if int64(d.A) != -1 || d.Obj != add.Obj || d.Flags != 0 || !(d.Pre < wait[0].Post) {
			t.Errorf("Done: delta %d obj %d flags %s pre %d (wait post %d)", int64(d.A), d.Obj, d.Flags, d.Pre, wait[0].Post)
		}
	}
	if !counters[0] || !counters[1] {
		t.Errorf("Done counters %v, want 1 and 0", counters)
	}
	if int64(wait[0].B) != 2 && int64(wait[0].B) != 1 && int64(wait[0].B) != 0 {
		t.Errorf("Wait entered with counter %d", int64(wait[0].B))
	}

	// wg.Go: an Add at the call, the spawn at the call, and the child's Done
	// marked internal at the call too.
	goAdd := one(t, tr, trace.KindWgAdd, "wg.go")
	goSpawn := one(t, tr, trace.KindGoSpawn, "wg.go")
	goDone := one(t, tr, trace.KindWgDone, "wg.go")
	if int64(goAdd.A) != 1 || int64(goAdd.B) != 1 || goAdd.Flags != 0 {
		t.Errorf("Go's Add: delta %d counter %d flags %s, want 1 1 none", int64(goAdd.A), int64(goAdd.B), goAdd.Flags)
	}
	if goDone.G != goSpawn.A || goDone.Flags != trace.FlagInternal || int64(goDone.B) != 0 {
		t.Errorf("Go's Done: g%d flags %s counter %d, want the spawned g%d, internal, 0", goDone.G, goDone.Flags, int64(goDone.B), goSpawn.A)
	}
}

func TestCondEvents(t *testing.T) {
	tr := record(t, buildEvents(t, false), "TestCond", nil).tr
	signal := one(t, tr, trace.KindCondSignal, "cond.signal")
	broadcast := one(t, tr, trace.KindCondBroadcast, "cond.broadcast")
	waits := at(t, tr, trace.KindCondWait, "cond.wait")
	if broadcast.Obj != signal.Obj {
		t.Errorf("Signal on %d, Broadcast on %d", signal.Obj, broadcast.Obj)
	}
	if broadcast.A != broadcast.B {
		t.Errorf("Broadcast with nobody waiting: tickets %d..%d", broadcast.A, broadcast.B)
	}
	// Whether the waiter waits at all depends on the schedule.
	if len(waits) == 0 {
		t.Skip("the signaller ran first: Wait was not called")
	}
	w := waits[0]
	internal := at(t, tr, trace.KindUnlock, "cond.wait")
	relock := at(t, tr, trace.KindLock, "cond.wait")
	if len(internal) != 1 || len(relock) != 1 {
		t.Fatalf("%d Unlock and %d Lock at the Wait, want 1 each\n%s", len(internal), len(relock), dump(tr))
	}
	if internal[0].Flags != trace.FlagInternal || relock[0].Flags != trace.FlagInternal || internal[0].Obj != w.B || relock[0].Obj != w.B {
		t.Errorf("Wait's Unlock/Lock: flags %s/%s objects %d/%d, want internal on the Cond's mutex %d", internal[0].Flags, relock[0].Flags, internal[0].Obj, relock[0].Obj, w.B)
	}
	if w.A != signal.A || signal.B != signal.A+1 {
		t.Errorf("Wait ticket %d, Signal woke %d (wait counter %d)", w.A, signal.A, signal.B)
	}
	if !(signal.Pre < w.Post && w.Post < relock[0].Post) {
		t.Errorf("stamps: signal %d, wait returned %d, relock %d", signal.Pre, w.Post, relock[0].Post)
	}
}

func TestRaceBuildRecords(t *testing.T) {
	tr := record(t, buildEvents(t, true), "TestChanUnbuffered", nil).tr
	send := one(t, tr, trace.KindChanSend, "unbuf.send")
	recv := one(t, tr, trace.KindChanRecv, "unbuf.recv")
	if send.A != 1 || recv.A != 1 || !(send.Post < recv.Post) {
		t.Errorf("-race build: send seq %d post %d, recv seq %d post %d", send.A, send.Post, recv.A, recv.Post)
	}
}

// Timer channels are filled by the runtime, sometimes from inside the
// receiving goroutine's own receive or select (time.sendTime nested in
// maybeRunChan): that send must not complete the user's operation.
func TestTimerChannelEvents(t *testing.T) {
	tr := record(t, buildEvents(t, false), "TestTimerChannels", nil).tr
	recv := one(t, tr, trace.KindChanRecv, "timer.after")
	if recv.Post == 0 || recv.A != 1 || recv.Obj == 0 || recv.Flags.Has(trace.FlagClosed) {
		t.Errorf("receive from time.After: post %d seq %d obj %d flags %s, want completed, seq 1", recv.Post, recv.A, recv.Obj, recv.Flags)
	}
	sel := one(t, tr, trace.KindSelect, "timer.select")
	if sel.A != 0 || sel.B != 1 || sel.Post == 0 || sel.Cases[0].Obj == 0 {
		t.Errorf("select on a timer: chose %d seq %d post %d, want case 0 seq 1", int64(sel.A), sel.B, sel.Post)
	}
}

// Every value a ticker delivers is a TimerFire of no goroutine, on the
// ticker's channel, at the position of its NewTicker with the internal flag,
// with the seq of the receive that gets it, stamped before that receive:
// whether the timer ran on the scheduler or inside the receive.
func TestTimerFireEvents(t *testing.T) {
	tr := record(t, buildEvents(t, false), "TestTickerFires", nil).tr
	mk := one(t, tr, trace.KindChanMake, "ticker.make")
	recvs := []trace.Event{one(t, tr, trace.KindChanRecv, "ticker.recv1"), one(t, tr, trace.KindChanRecv, "ticker.recv2"), one(t, tr, trace.KindSelect, "ticker.select")}
	fires := map[uint64]trace.Event{}
	for _, e := range tr.Events {
		if e.Kind != trace.KindTimerFire {
			continue
		}
		if e.Obj != mk.Obj || e.G != 0 || e.Flags != trace.FlagInternal || e.Pos != mk.Pos || e.Pre != e.Post || e.C != 1 {
			t.Errorf("fire: obj %d g%d flags %s pos %s pre %d post %d cap %d; want obj %d, no goroutine, internal, at @ticker.make, pre = post, cap 1",
				e.Obj, e.G, e.Flags, tr.Position(e.Pos), e.Pre, e.Post, e.C, mk.Obj)
		}
		if _, dup := fires[e.A]; dup || e.A == 0 {
			t.Errorf("fire seq %d twice or zero\n%s", e.A, dump(tr))
		}
		fires[e.A] = e
	}
	for k, r := range recvs {
		seq := r.A
		if r.Kind == trace.KindSelect {
			seq = r.B
		}
		f, ok := fires[seq]
		if !ok || r.Post == 0 {
			t.Errorf("receive %d (seq %d, post %d): no fire with its seq\n%s", k+1, seq, r.Post, dump(tr))
			continue
		}
		if !(f.Post < r.Post) {
			t.Errorf("receive %d: fire stamp %d not before the receive's %d", k+1, f.Post, r.Post)
		}
	}
}

// An AfterFunc timer's creation and a timer's Resets are TimerSet events of
// the setting goroutine at the user's call (the creation with a = 1), on the
// timer: for a ticker its channel (whose make stands for its creation), for
// an AfterFunc an object of its own, which is also the object of the GoSpawn,
// of no goroutine, that starts the AfterFunc's function when the timer fires,
// at the AfterFunc call.
func TestTimerSetEvents(t *testing.T) {
	tr := record(t, buildEvents(t, false), "TestTimerSets", nil).tr
	set := one(t, tr, trace.KindTimerSet, "afterfunc.set")
	reset := one(t, tr, trace.KindTimerSet, "afterfunc.reset")
	cl := one(t, tr, trace.KindChanClose, "afterfunc.close")
	mk := one(t, tr, trace.KindChanMake, "tickerset.make")
	if sets := at(t, tr, trace.KindTimerSet, "tickerset.make"); len(sets) != 0 {
		t.Errorf("%d TimerSet events at NewTicker, want none (its channel's make stands for it)", len(sets))
	}
	treset := one(t, tr, trace.KindTimerSet, "tickerset.reset")
	recv := one(t, tr, trace.KindChanRecv, "tickerset.recv")
	for _, c := range []struct {
		name   string
		e      trace.Event
		obj, a uint64
	}{{"AfterFunc", set, set.Obj, 1}, {"Timer.Reset", reset, set.Obj, 0}, {"Ticker.Reset", treset, mk.Obj, 0}} {
		e := c.e
		if e.Obj == 0 || e.Obj != c.obj || e.A != c.a || e.G != recv.G || e.Flags != trace.FlagInternal || e.Pre != e.Post || e.Post == 0 {
			t.Errorf("%s: obj %d a %d g%d flags %s pre %d post %d; want obj %d a %d g%d internal pre = post", c.name, e.Obj, e.A, e.G, e.Flags, e.Pre, e.Post, c.obj, c.a, recv.G)
		}
	}
	if set.Obj == mk.Obj {
		t.Errorf("the AfterFunc timer and the ticker share object %d", set.Obj)
	}
	var spawns []trace.Event
	for _, e := range tr.Events {
		if e.Kind == trace.KindGoSpawn && e.Obj != 0 {
			spawns = append(spawns, e)
		}
	}
	if len(spawns) != 1 {
		t.Fatalf("%d spawns by a timer, want 1\n%s", len(spawns), dump(tr))
	}
	sp := spawns[0]
	if sp.G != 0 || sp.Obj != set.Obj || sp.Pos != set.Pos || sp.Flags != trace.FlagInternal || sp.A != cl.G || !(reset.Post < sp.Post) || !(sp.Post < cl.Pre) {
		t.Errorf("AfterFunc spawn: g%d obj %d at %s flags %s child g%d stamp %d; want no goroutine, obj %d, at @afterfunc.set, internal, child g%d (the close's), after the reset %d, before the close %d",
			sp.G, sp.Obj, tr.Position(sp.Pos), sp.Flags, sp.A, sp.Post, set.Obj, cl.G, reset.Post, cl.Pre)
	}
	if cl.Flags != 0 {
		t.Errorf("close in the AfterFunc function: flags %s, want none (user code)", cl.Flags)
	}
}

// A deferred call is attributed to its defer statement, also when the defer
// is not open-coded (in a loop).
func TestDeferredCallPosition(t *testing.T) {
	tr := record(t, buildEvents(t, false), "TestDeferredClose", nil).tr
	closes := at(t, tr, trace.KindChanClose, "defer.close")
	if len(closes) != 2 {
		t.Fatalf("%d closes at the defer statement, want 2\n%s", len(closes), dump(tr))
	}
}

// A full event buffer drops events, counts them, and still writes a valid trace.
func TestFullBufferDropsEvents(t *testing.T) {
	tr := record(t, buildEvents(t, false), "TestChanBuffered", nil, EnvEvents+"=4").tr
	if len(tr.Events) != 4 {
		t.Errorf("%d events, want the buffer's 4", len(tr.Events))
	}
	if tr.Meta["dropped"] == "0" || tr.Meta["dropped"] == "" {
		t.Errorf("dropped = %q, want > 0", tr.Meta["dropped"])
	}
}

// Only operations attributed to files under GOWEAVE_MODULE are recorded;
// goroutine spawns and ends always are. Unset, everything outside GOROOT is.
func TestModuleFilter(t *testing.T) {
	bin := buildEvents(t, false)
	other := record(t, bin, "TestChanUnbuffered", nil, EnvModule+"="+t.TempDir()).tr
	spawns := 0
	for _, e := range other.Events {
		switch e.Kind {
		case trace.KindGoSpawn, trace.KindGoEnd:
			spawns++
		default:
			t.Errorf("%s at %s recorded outside GOWEAVE_MODULE", e.Kind, other.Position(e.Pos))
		}
	}
	if spawns == 0 {
		t.Errorf("no GoSpawn/GoEnd events")
	}
	unclean := record(t, bin, "TestChanUnbuffered", nil, EnvModule+"="+testdataDir(t)+"/./events/../").tr
	one(t, unclean, trace.KindChanSend, "unbuf.send")
	if unclean.Meta["module"] != testdataDir(t) {
		t.Errorf("META module = %q, want the cleaned %q", unclean.Meta["module"], testdataDir(t))
	}
	unset := record(t, bin, "TestChanUnbuffered", nil, EnvModule+"=").tr
	one(t, unset, trace.KindChanSend, "unbuf.send")
	for _, e := range unset.Events {
		if p := unset.Position(e.Pos).File; p != "" && !strings.HasPrefix(p, testdataDir(t)) {
			t.Errorf("%s recorded at %s", e.Kind, p)
		}
	}
}

func TestSelectSendOnClosedEvents(t *testing.T) {
	tr := record(t, buildEvents(t, false), "TestSelectSendOnClosed", nil).tr
	sel := one(t, tr, trace.KindSelect, "select.sendclosed")
	if sel.A != 0 || !sel.Cases[0].Send || sel.Flags != trace.FlagClosed || sel.Post == 0 {
		t.Errorf("select sending on a closed channel: chose %d flags %s post %d, want case 0 (the send), closed, completed", int64(sel.A), sel.Flags, sel.Post)
	}
}

// Once.Do whose f panics has returned, for the Once and for the trace.
func TestOncePanicEvents(t *testing.T) {
	tr := record(t, buildEvents(t, false), "TestOncePanics", nil).tr
	first := one(t, tr, trace.KindOnceDo, "once.panics")
	after := one(t, tr, trace.KindOnceDo, "once.after")
	if !first.Flags.Has(trace.FlagSuccess) || first.Post == 0 || after.Flags.Has(trace.FlagSuccess) || !(first.Post < after.Pre) {
		t.Errorf("Do with panicking f: flags %s post %d; next Do flags %s pre %d", first.Flags, first.Post, after.Flags, after.Pre)
	}
}

func TestEmptySelectEvents(t *testing.T) {
	tr := record(t, buildEvents(t, false), "TestEmptySelectLeak", nil).tr
	sel := one(t, tr, trace.KindSelect, "select.empty")
	if sel.Aux != 0 || sel.Post != 0 || sel.A != trace.SelectDefault {
		t.Errorf("select {}: %d cases, post %d, chose %d; want 0 cases, never completed", sel.Aux, sel.Post, int64(sel.A))
	}
	for _, g := range tr.Goroutines {
		if g.ID == sel.G && (g.WaitReason != "select (no cases)" || g.LastEvent != sel.Index) {
			t.Errorf("goroutine: reason %q last %d", g.WaitReason, g.LastEvent)
		}
	}
}

// TestLibEvents: operations the standard library performs for the user
// (docs/stdlib-hb.md) are recorded at the user's call, with the internal
// flag; testing's own synchronisation is not recorded.
func TestLibEvents(t *testing.T) {
	tr := record(t, buildEvents(t, false), "TestLibContext", nil).tr
	m := markers(t)
	recv := one(t, tr, trace.KindChanRecv, "lib.done")
	closes := at(t, tr, trace.KindChanClose, "lib.cancel")
	if len(closes) != 1 || closes[0].Obj != recv.Obj || !closes[0].Flags.Has(trace.FlagInternal) {
		t.Fatalf("cancel(): closes %v, want one internal close of the Done channel %d\n%s", closes, recv.Obj, dump(tr))
	}
	if recv.Flags.Has(trace.FlagInternal) || !recv.Flags.Has(trace.FlagClosed) {
		t.Errorf("<-ctx.Done(): flags %s, want the user's own receive, released by the close", recv.Flags)
	}
	if mk := one(t, tr, trace.KindChanMake, "lib.make"); mk.Obj != recv.Obj || !mk.Flags.Has(trace.FlagInternal) {
		t.Errorf("ctx.Done(): make of %d flags %s, want the internal make of the Done channel %d", mk.Obj, mk.Flags, recv.Obj)
	}
	for _, e := range tr.Events {
		if p := tr.Position(e.Pos); e.Pos != 0 && !strings.HasSuffix(p.File, "_test.go") {
			t.Errorf("%s attributed to %s:%d, outside the user's files", e.Kind, p.File, p.Line)
		}
	}

	tr = record(t, buildEvents(t, false), "TestLibPipe", nil).tr
	var write, read int
	for _, e := range tr.Events {
		switch p := tr.Position(e.Pos); {
		case e.Flags.Has(trace.FlagInternal) && p.String() == m["lib.write"]:
			write++
		case e.Flags.Has(trace.FlagInternal) && p.String() == m["lib.read"]:
			read++
		}
	}
	if write == 0 || read == 0 {
		t.Errorf("io.Pipe: %d internal operations at the Write, %d at the Read; want both\n%s", write, read, dump(tr))
	}
}

// A value a Stop or Reset discarded from a timer's channel counts as taken: the
// receive after it has the seq of the fire it gets, not of the discarded one.
// The program repeats until the runtime discarded a value at least once.
func TestTimerDrainedValueEvents(t *testing.T) {
	tr := record(t, buildEvents(t, false), "TestTimerDrained", nil).tr
	makes := at(t, tr, trace.KindChanMake, "drain.make")
	fires := map[uint64][]trace.Event{} // by channel
	for _, e := range tr.Events {
		if e.Kind == trace.KindTimerFire {
			fires[e.Obj] = append(fires[e.Obj], e)
		}
	}
	discarded := 0
	for _, r := range at(t, tr, trace.KindChanRecv, "drain.recv") {
		var before []trace.Event
		for _, f := range fires[r.Obj] {
			if f.Post < r.Post {
				before = append(before, f)
			}
		}
		if len(before) == 0 {
			t.Fatalf("receive on channel %d: no fire before it\n%s", r.Obj, dump(tr))
		}
		if last := before[len(before)-1]; r.A != last.A {
			t.Errorf("receive on channel %d has seq %d, the fire before it %d (%d fires before it)\n%s", r.Obj, r.A, last.A, len(before), dump(tr))
		}
		discarded += len(before) - 1
	}
	if discarded == 0 {
		t.Fatalf("no value discarded in %d rounds: the test did not test the drain\n%s", len(makes), dump(tr))
	}
	t.Logf("%d values discarded in %d rounds", discarded, len(makes))
}
