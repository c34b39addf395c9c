package analysis

import (
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// The gated fan-out (every Done after every Add): the group is ordered, so the detector
// skips the matching; the leaked sender is still reported.
func TestWaitGroupGatedFanout(t *testing.T) {
	r := Analyze(wgFanout(3000))
	wantNo(t, r, "negative-waitgroup")
	want(t, r, "leak-chan", Actual, "main.go:18")
	if len(r.facts.wgs) != 1 || !r.facts.wgs[0].covered() {
		t.Fatalf("the group's Adds all happen before its Dones: want it covered without matching")
	}
}

// A Done that no Add happens before, in a large group whose other Dones are ordered after
// every Add: the prediction needs the matching, which reads the per-Done projections.
func TestWaitGroupLargeGroupUnorderedDone(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	wg := b.WaitGroup()
	start := m.MakeChan(0, "main.go:8")
	early := m.Go("main.go:9") // started before any Add: its Done may come first
	var ws []*tracetest.G
	for range 300 {
		m.Add(wg, 1, "main.go:10")
		ws = append(ws, m.Go("main.go:11"))
	}
	m.Add(wg, 1, "main.go:12")
	m.Close(start, "main.go:14")
	early.Done(wg, "early.go:20")
	for _, w := range ws {
		w.RecvBare(start, "main.go:15")
		w.Done(wg, "main.go:16")
	}
	m.Wait(wg, "main.go:18")
	r := Analyze(b.Trace())
	want(t, r, "negative-waitgroup", Predicted, "early.go:20")
	if n := len(r.Findings); n != 1 {
		t.Errorf("%d findings, want only the early Done: %v", n, summaries(r))
	}
}

// A group every worker Adds to itself: too many Adds and Dones to match, so no projection
// per Done and adder is kept (2000 x 2000 entries otherwise), and the adders are indexed.
// Each worker's Done follows its own Add (no negative counter); the Adds from a zero
// counter, in the workers, are not ordered before main's Wait: one Add/Wait race.
func TestWaitGroupManyAdders(t *testing.T) {
	r := Analyze(wgSelfAdd(2000))
	wantNo(t, r, "negative-waitgroup")
	want(t, r, "data-race", Predicted, "main.go:12", "wait=main.go:16")
	if len(r.Findings) != 1 || len(r.facts.addWait) != 1 {
		t.Errorf("findings %v, %d Add/Wait pairs: want the one race", summaries(r), len(r.facts.addWait))
	}
	wf := r.facts.wgs[0]
	if !wf.noProj || cap(wf.proj) != 0 {
		t.Errorf("noProj %v, projection capacity %d: want none kept", wf.noProj, cap(wf.proj))
	}
	if len(wf.adders.list) != 2000 || wf.adders.index(wf.adders.list[1234]) != 1234 {
		t.Errorf("adders: %d, index of the 1235th %d", len(wf.adders.list), wf.adders.index(wf.adders.list[1234]))
	}
}

func TestAdderSet(t *testing.T) {
	var s adderSet
	for _, g := range []int32{5, 3, 5, 9, 1, 2, 3, 7, 8, 11, 12, 13, 5, 40} {
		s.add(g)
	}
	want := []int32{5, 3, 9, 1, 2, 7, 8, 11, 12, 13, 40}
	if len(s.list) != len(want) {
		t.Fatalf("list %v, want %v", s.list, want)
	}
	for k, g := range want {
		if s.list[k] != g || s.index(g) != k {
			t.Errorf("%d: list %d, index %d", g, s.list[k], s.index(g))
		}
	}
	if s.index(4) != -1 || s.idx == nil {
		t.Errorf("index(4) = %d, idx %v: want -1 and an index past %d adders", s.index(4), s.idx != nil, adderScan)
	}
}

// addThenLock: a worker started by main Adds to a zero counter when it starts, then takes
// lock l (as ctx.Done() takes a context's lock); main takes l after it (cancel), then
// waits on the group; the worker's Done comes when it sees the cancel. addLocked puts the
// worker's Add inside its critical section, waitLocked main's Wait inside its own.
func addThenLock(addLocked, waitLocked bool) *Result {
	b := tracetest.New()
	m := b.Main()
	wg := b.WaitGroup()
	l := b.Mutex()
	done := m.MakeChan(0, "main.go:8")
	w := m.Go("main.go:9")
	if addLocked {
		w.Lock(l, "worker.go:19")
	}
	w.Add(wg, 1, "worker.go:20")
	if !addLocked {
		w.Lock(l, "worker.go:21")
	}
	w.Unlock(l, "worker.go:22")
	m.Lock(l, "main.go:12")
	m.Close(done, "main.go:13")
	if !waitLocked {
		m.Unlock(l, "main.go:14")
	}
	wait := m.Pending().Wait(wg, "main.go:15")
	wait.Event().B = 1
	w.RecvBare(done, "worker.go:24")
	w.Done(wg, "worker.go:25")
	wait.Complete()
	if waitLocked {
		m.Unlock(l, "main.go:16")
	}
	w.End()
	m.End()
	return Analyze(b.Trace())
}

// The Add from zero is ordered before the Wait only by lock l, which the worker took after
// the Add: delayed before its Add, the worker leaves l to main, whose Wait returns at once.
// The strong clock (locks included) hid the race.
func TestWaitGroupAddOrderedOnlyByLaterLock(t *testing.T) {
	r := addThenLock(false, false)
	want(t, r, "data-race", Predicted, "worker.go:20", "wait=main.go:15")
	if len(r.Findings) != 1 {
		t.Errorf("findings %v: want the one race", summaries(r))
	}
}

// The Add under the lock main takes before its Wait (a closer's pattern), and the Add and
// the Wait both under one lock: in every schedule the lock orders them.
func TestWaitGroupAddUnderLockTakenBeforeWait(t *testing.T) {
	wantNo(t, addThenLock(true, false), "data-race")
	wantNo(t, addThenLock(true, true), "data-race")
}

// A reuse: main Waits (the counter is zero) and a worker then Adds. With the Wait and the Add
// both under lock l, the Wait returned before the Add in every schedule; with each after a
// critical section of l, nothing ordered them (the Add ran unordered after the Wait).
func TestWaitGroupReuseAfterWaitUnderLock(t *testing.T) {
	for _, locked := range []bool{true, false} {
		b := tracetest.New()
		m := b.Main()
		wg := b.WaitGroup()
		l := b.Mutex()
		w := m.Go("main.go:9")
		m.Lock(l, "main.go:10")
		if !locked {
			m.Unlock(l, "main.go:11")
		}
		m.Wait(wg, "main.go:12")
		if locked {
			m.Unlock(l, "main.go:13")
		}
		w.Lock(l, "worker.go:20")
		if !locked {
			w.Unlock(l, "worker.go:21")
		}
		w.Add(wg, 1, "worker.go:22")
		if locked {
			w.Unlock(l, "worker.go:23")
		}
		w.Done(wg, "worker.go:24")
		w.End()
		m.End()
		r := Analyze(b.Trace())
		if locked {
			wantNo(t, r, "data-race")
		} else {
			want(t, r, "data-race", Actual, "worker.go:22", "wait=main.go:12")
		}
	}
}

// gocron's Stop at the fix of gocron-singleton: a stopper started before start's Add waits
// only when the running flag, set after the Add, says so; the Add is otherwise ordered
// before the Wait only by the context's lock (the run goroutine's ctx.Done(), then Stop's
// cancel), as in the bug's own pair. With the flag recorded (a sync/atomic of the module)
// the flag orders them (a sync/atomic of the module, or a dependency's helper inlined into
// it, as go.uber.org/atomic's: runtimepatch records both); unrecorded (an atomic in a
// dependency's function not inlined into the module) the trace is the bug's and the race is
// predicted: the limit the rule's doc states.
func TestWaitGroupWaitGuardedByAtomicFlag(t *testing.T) {
	for _, flag := range []bool{true, false} {
		b := tracetest.New()
		m := b.Main()
		wg := b.WaitGroup()
		ctx := b.Mutex()
		const running = 0xc0
		stopper := m.Go("example_test.go:780")
		m.Add(wg, 1, "executor.go:121")
		run := m.Go("executor.go:134")
		if flag {
			m.AtomicStore(running, "scheduler.go:119")
		}
		run.Lock(ctx, "executor.go:234")
		done := run.MakeChan(0, "executor.go:234")
		run.Unlock(ctx, "executor.go:234")
		if flag {
			stopper.AtomicLoad(running, "scheduler.go:124")
		}
		stopper.Lock(ctx, "executor.go:244")
		stopper.Close(done, "executor.go:244")
		stopper.Unlock(ctx, "executor.go:244")
		wait := stopper.Pending().Wait(wg, "executor.go:245")
		wait.Event().B = 1
		run.RecvBare(done, "executor.go:234")
		run.Done(wg, "executor.go:236")
		wait.Complete()
		run.End()
		stopper.End()
		m.End()
		r := Analyze(b.Trace())
		if flag {
			wantNo(t, r, "data-race")
		} else {
			want(t, r, "data-race", Predicted, "executor.go:121", "wait=executor.go:245")
		}
	}
}
