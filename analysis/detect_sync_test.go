package analysis

import (
	"bytes"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// negative_waitgroup_predicted: Add after go; each worker's Done is unordered with its Add.
func TestNegativeWaitGroupPredicted(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	wg := b.WaitGroup()
	var ws []*tracetest.G
	for i := 0; i < 3; i++ {
		ws = append(ws, m.Go("n.go:18"))
		m.Add(wg, 1, "n.go:23")
	}
	for _, w := range ws {
		w.Done(wg, "n.go:21")
		w.End()
	}
	m.Wait(wg, "n.go:25")
	r := analyze(t, b)
	want(t, r, "negative-waitgroup", Predicted, "n.go:21", "add=n.go:23")
	if len(r.Findings) != 1 {
		t.Errorf("findings %v", summaries(r))
	}
}

// Add before go: every Done matches an earlier Add. Also Add(n) covering n Dones.
func TestNegativeWaitGroupMatched(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	wg := b.WaitGroup()
	m.Add(wg, 2, "n.go:16")
	w1 := m.Go("n.go:17")
	w2 := m.Go("n.go:18")
	m.Add(wg, 1, "n.go:19")
	w3 := m.Go("n.go:20")
	w3.Done(wg, "n.go:21")
	w1.Done(wg, "n.go:21")
	w2.Done(wg, "n.go:21")
	m.Wait(wg, "n.go:25")
	wantNo(t, analyze(t, b))
}

// select_gfuzz in its bad schedule: the abort branch's Done takes the counter to -1.
func TestNegativeWaitGroupActual(t *testing.T) {
	b := tracetest.New().Meta("exit", "panic")
	m := b.Main()
	wg := b.WaitGroup()
	m.Add(wg, 1, "g.go:19")
	u := m.Go("g.go:20")
	u.Done(wg, "g.go:24")
	m.Done(wg, "g.go:36")
	r := analyze(t, b)
	want(t, r, "negative-waitgroup", Actual, "g.go:36", "previous add or done=g.go:24")
	if len(r.Findings) != 1 {
		t.Errorf("findings %v", summaries(r))
	}
}

// unlock_of_unlocked_select in its bad schedule: the cancel branch unlocks, then the common
// Unlock finds the mutex unlocked.
func TestUnlockOfUnlockedActual(t *testing.T) {
	b := tracetest.New().Meta("exit", "fatal").Meta("message", "sync: unlock of unlocked mutex")
	m := b.Main()
	mu := b.Mutex()
	m.Lock(mu, "u.go:21")
	m.Unlock(mu, "u.go:27")
	m.Unlock(mu, "u.go:30")
	r := analyze(t, b)
	want(t, r, "unlock-of-unlocked", Actual, "u.go:30", "earlier unlock=u.go:27")
	// RWMutex: an RUnlock without a reader
	b2 := tracetest.New()
	m2 := b2.Main()
	rw := b2.RWMutex()
	m2.RLock(rw, "u.go:10")
	m2.RUnlock(rw, "u.go:11")
	m2.RUnlock(rw, "u.go:12")
	want(t, analyze(t, b2), "unlock-of-unlocked", Actual, "u.go:12", "earlier unlock=u.go:11")
}

// A lock handed to another goroutine for unlocking: reported unless the unlock is ordered
// after the lock.
func TestUnlockInOtherGoroutine(t *testing.T) {
	for _, ordered := range []bool{false, true} {
		b := tracetest.New()
		m := b.Main()
		mu := b.Mutex()
		ready := m.MakeChan(0, "h.go:5")
		w := m.Go("h.go:6")
		m.Lock(mu, "h.go:8")
		if ordered {
			m.Send(ready, "h.go:9")
			w.RecvBare(ready, "h.go:12")
		}
		w.Unlock(mu, "h.go:13")
		r := analyze(t, b)
		if ordered {
			wantNo(t, r)
		} else {
			want(t, r, "unlock-of-unlocked", Predicted, "h.go:13", "lock=h.go:8")
		}
	}
}

// Flow pairs: a Once.Do that ran and one that did not, a TryLock that failed against a
// concurrent Lock, two sends on one channel.
func TestConcurrentPairs(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	once := b.Once()
	mu := b.Mutex()
	c := m.MakeChan(2, "f.go:3")
	g1 := m.Go("f.go:4")
	g2 := m.Go("f.go:5")
	g1.OnceDo(once, "f.go:10")
	g2.OnceDo(once, "f.go:20")
	g1.Lock(mu, "f.go:11")
	g2.TryLock(mu, "f.go:21", false)
	g1.Unlock(mu, "f.go:12")
	g1.Send(c, "f.go:13")
	g2.Send(c, "f.go:22")
	m.Recv(c, "f.go:30")
	m.Recv(c, "f.go:30")
	r := analyze(t, b)
	got := map[PairKind][2]int{}
	for _, p := range r.ConcurrentPairs() {
		got[p.Kind] = [2]int{r.Trace.Position(r.Trace.Events[p.First].Pos).Line, r.Trace.Position(r.Trace.Events[p.Second].Pos).Line}
	}
	for kind, lines := range map[PairKind][2]int{PairOnce: {10, 20}, PairTryLock: {11, 21}, PairSend: {13, 22}} {
		if got[kind] != lines {
			t.Errorf("%s pair: got lines %v, want %v (all: %v)", kind, got[kind], lines, got)
		}
	}
	// the Dos are ordered in the strong relation (the second waits for f), not concurrent
	cl := r.Clocks()
	var do1, do2 int
	for i, e := range r.Trace.Events {
		if e.Kind.String() == "OnceDo" {
			if do1 == 0 {
				do1 = i
			} else {
				do2 = i
			}
		}
	}
	if !cl.HappensBefore(do1, do2) || cl.Concurrent(do1, do2) {
		t.Error("the Do that did not run should happen after the one that ran")
	}
}

// Ordered Dos (a channel orders the second after the first) are no flow pair.
func TestConcurrentPairsOrdered(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	once := b.Once()
	c := m.MakeChan(0, "f.go:3")
	g1 := m.Go("f.go:4")
	g1.OnceDo(once, "f.go:10")
	g1.Send(c, "f.go:11")
	m.Recv(c, "f.go:12")
	m.OnceDo(once, "f.go:13")
	for _, p := range analyze(t, b).ConcurrentPairs() {
		if p.Kind == PairOnce {
			t.Errorf("ordered Dos reported as a pair")
		}
	}
}

// A corrupt trace whose Add names no goroutine (goid 0) is analyzed, not a panic: the
// event is outside every goroutine, so it adds nothing, and the Done is still checked.
func TestWaitGroupAddWithoutGoroutine(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	wg := b.WaitGroup()
	lost := m.Add(wg, 1, "n.go:10")
	w := m.Go("n.go:11")
	w.Done(wg, "n.go:12")
	m.Wait(wg, "n.go:13")
	tr := b.Trace()
	tr.Events[lost.Index].G = 0
	r := Analyze(tr)
	want(t, r, "negative-waitgroup", Predicted, "n.go:12")
}

// pond's TestPurgeDuringSubmit at pond-purger-send-after-close's parent: Submit adds and
// hands its task to a worker it starts; the test then stops an idle worker by sending it a
// nil task (maybeStopIdleWorker), adding nothing; a second Submit adds and sends its task
// from a goroutine it starts; the worker and stop's drain (`for range tasks { wg.Done() }`)
// count every value they receive, the worker the nil task, so the drain's Done takes the
// counter below zero. The negative-waitgroup names the nil task's
// send, not the second Submit's (its go statement follows the Add), nor the Add of the
// first (the worker it started counts it).
func TestNegativeWaitGroupUncountedSend(t *testing.T) {
	b := tracetest.New().Meta("exit", "panic")
	m := b.Main()
	wg := b.WaitGroup()
	tasks := m.MakeChan(8, "pool.go:10")
	m.Add(wg, 1, "pool.go:20")
	first := m.Go("pool.go:29")
	m.Send(tasks, "pool.go:40")
	m.Add(wg, 1, "pool.go:20")
	helper := m.Go("pool.go:23")
	helper.Send(tasks, "pool.go:24")
	drain := m.Go("pool.go:13")
	first.Done(wg, "pool.go:30")
	first.Recv(tasks, "worker.go:30")
	first.Done(wg, "worker.go:32")
	drain.RecvOK(tasks, "worker.go:49")
	drain.Done(wg, "worker.go:50")
	r := analyze(t, b)
	f := want(t, r, "negative-waitgroup", Actual, "worker.go:50", "sent a value no Add counted=pool.go:40")
	if !strings.Contains(f.Message, "sent at pool.go:40 with no Add") {
		t.Errorf("message %q, want it to name the send at pool.go:40", f.Message)
	}
	for _, p := range f.Positions {
		if p.Line == 24 {
			t.Errorf("the second Submit's send (its goroutine started after the Add) named: %+v", f.Positions)
		}
	}
}

// A Done after a task that received from a channel of its own counts the task, not that
// value: the pool's Done (another function than the task's receive) names no send; the
// same receive and Done in one function (a drain loop) name it.
func TestNegativeWaitGroupUncountedSendOtherFunction(t *testing.T) {
	for _, sameFunc := range []bool{false, true} {
		b := tracetest.New().Meta("exit", "panic")
		m := b.Main()
		wg := b.WaitGroup()
		unblock := m.MakeChan(1, "pool_test.go:5")
		m.Add(wg, 1, "pool.go:20")
		w := m.Go("pool.go:29")
		m.Send(unblock, "pool_test.go:9") // the test unblocks the task
		w.Recv(unblock, "pool_test.go:7") // the task's own receive
		w.Done(wg, "pool.go:30")          // the pool's Done after the task
		m.Done(wg, "pool.go:50")          // a second Done: below zero
		tr, err := trace.Read(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		for i := range tr.Positions {
			if tr.Positions[i].Line == 7 && !sameFunc {
				tr.Positions[i].Func = "m.TestX.func1"
			}
		}
		r := Analyze(tr)
		f := want(t, r, "negative-waitgroup", Actual, "pool.go:50")
		named := false
		for _, p := range f.Positions {
			named = named || p.Role == "sent a value no Add counted"
		}
		if named != sameFunc {
			t.Errorf("receive and Done in one function: %v; positions %+v", sameFunc, f.Positions)
		}
	}
}
