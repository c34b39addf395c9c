package analysis

import (
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// leak_chan_timeout, bad schedule: the select took ctx.Done(); the lookup's send on the
// unbuffered result channel blocks forever.
func TestLeakChan(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	ctxDone := b.ForeignChan(0)
	res := m.MakeChan(0, "l.go:16")
	w := m.Go("l.go:17")
	w.Pending().Send(res, "l.go:18")
	b.CloseForeign(ctxDone)
	m.Select("l.go:20", 1, tracetest.RecvValueCase(res), tracetest.RecvCase(ctxDone))
	m.End()
	r := analyze(t, b)
	f := want(t, r, "leak-chan", Actual, "l.go:18", "partner=l.go:20")
	if f.Goroutines[0].Spawn != "l.go:17" {
		t.Errorf("goroutines %+v", f.Goroutines)
	}
	if len(r.Findings) != 1 {
		t.Errorf("findings %v", summaries(r))
	}
}

// A blocked goroutine whose partner goroutine is still alive and not blocked (sleeping,
// computing) may yet be served: lingering, not a leak. Without it, the same is a leak.
func TestLingeringIsNotALeak(t *testing.T) {
	for _, partnerAlive := range []bool{true, false} {
		b := tracetest.New()
		m := b.Main()
		c := m.MakeChan(0, "l.go:5")
		w := m.Go("l.go:6")
		p := m.Go("l.go:7")
		p.Send(c, "l.go:20")
		m.Recv(c, "l.go:8")
		w.Pending().Recv(c, "l.go:9")
		if partnerAlive {
			p.State(4, "sleep")
		} else {
			p.End()
		}
		m.End()
		r := analyze(t, b)
		if partnerAlive {
			wantNo(t, r)
		} else {
			want(t, r, "leak-chan", Actual, "l.go:9", "partner=l.go:20")
		}
	}
}

// A goroutine the process exit caught between requesting a send and completing it (running
// on another P, not parked) is not leaked: nothing says it would have blocked.
func TestRunningAtExitIsNotALeak(t *testing.T) {
	for _, status := range []uint32{1, 2, 3, 4} {
		b := tracetest.New()
		m := b.Main()
		c := m.MakeChan(0, "l.go:5")
		w := m.Go("l.go:6")
		w.Pending().Send(c, "l.go:7")
		if status != 4 {
			w.State(status, "")
		}
		m.End()
		r := analyze(t, b)
		if status == 4 {
			want(t, r, "leak-chan", Actual, "l.go:7")
		} else if len(r.Findings) != 0 {
			t.Errorf("status %d: findings %v, want none", status, summaries(r))
		}
	}
}

// leak_mutex, bad schedule: pop returned holding the lock; push blocks forever.
func TestLeakMutex(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	mu := b.Mutex()
	p := m.Go("q.go:37")
	m.Lock(mu, "q.go:25")
	p.Pending().Lock(mu, "q.go:19")
	m.End()
	r := analyze(t, b)
	want(t, r, "leak-mutex", Actual, "q.go:19", "held lock=q.go:25")
}

// leak_cond, bad schedule: the Signal came before the Wait; the waiter sleeps forever.
func TestLeakCond(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	mu := b.Mutex()
	cond := b.Cond(mu)
	await := m.Go("c.go:48")
	load := m.Go("c.go:49")
	load.Lock(mu, "c.go:22")
	load.Signal(cond, "c.go:24")
	load.Unlock(mu, "c.go:25")
	load.End()
	await.Lock(mu, "c.go:29")
	await.CondWait(cond, "c.go:30")
	m.End()
	r := analyze(t, b)
	want(t, r, "leak-cond", Actual, "c.go:30", "signal=c.go:24")
	if len(r.Findings) != 1 {
		t.Errorf("findings %v", summaries(r))
	}
}

// A Signal that wakes the waiter: the waiter's return happens after the Signal.
func TestCondSignalSynchronizes(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	mu := b.Mutex()
	cond := b.Cond(mu)
	w := m.Go("c.go:48")
	w.Lock(mu, "c.go:29")
	wait := w.CondWait(cond, "c.go:30")
	m.Lock(mu, "c.go:22")
	sig := m.Signal(cond, "c.go:24")
	m.Unlock(mu, "c.go:25")
	wait.Complete()
	w.Unlock(mu, "c.go:32")
	r := analyze(t, b)
	wantNo(t, r)
	if !r.Clocks().HappensBefore(sig.Index, wait.Index) {
		t.Error("Signal should happen before the Wait it woke returns")
	}
}

func TestLeakWaitGroupAndNilChan(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	wg := b.WaitGroup()
	m.Add(wg, 2, "w.go:34")
	u := m.Go("w.go:36")
	u.Done(wg, "w.go:29")
	u.End()
	committer := m.Go("w.go:38")
	committer.Pending().Wait(wg, "w.go:39")
	mon := m.Go("w.go:33")
	mon.Pending().RecvOK(tracetest.NilChan, "w.go:50")
	m.End()
	r := analyze(t, b)
	want(t, r, "leak-waitgroup", Actual, "w.go:39", "add=w.go:34")
	want(t, r, "leak-nil-chan", Actual, "w.go:50")
	if len(r.Findings) != 2 {
		t.Errorf("findings %v", summaries(r))
	}
}

func TestLeakSelect(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	updates := m.MakeChan(1, "s.go:50")
	stop := m.MakeChan(0, "s.go:49")
	w := m.Go("s.go:51")
	u := m.Go("s.go:52")
	u.Send(updates, "s.go:52")
	u.End()
	w.Select("s.go:28", 0, tracetest.RecvValueCase(updates), tracetest.RecvCase(stop))
	w.Pending().Select("s.go:28", 0, tracetest.RecvValueCase(updates), tracetest.RecvCase(stop))
	m.End()
	r := analyze(t, b)
	want(t, r, "leak-select", Actual, "s.go:28")
	wantNo(t, r, "leak-chan", "deadlock")
}

// A process that crashed for another reason: goroutines blocked at that moment were cut
// short, not leaked.
func TestNoLeaksAfterCrash(t *testing.T) {
	b := tracetest.New().Meta("exit", "panic").Meta("message", "boom")
	m := b.Main()
	c := m.MakeChan(0, "x.go:1")
	w := m.Go("x.go:2")
	w.Pending().Recv(c, "x.go:3")
	wantNo(t, analyze(t, b))
}

// The runtime's deadlock check: one stuck state, one deadlock finding at its root. The test
// goroutine holds mu and sends to the goroutine it started, which waits for mu: a cycle,
// anchored at the send blocked holding the lock (the lock held across it is the bug), with
// the Lock as related.
func TestDeadlockActual(t *testing.T) {
	b := tracetest.New().Meta("exit", "deadlock").Meta("message", "all goroutines are asleep - deadlock!")
	m := b.Main()
	mu := b.Mutex()
	events := m.MakeChan(0, "d.go:34")
	sub := m.Go("d.go:36")
	m.Lock(mu, "d.go:21")
	m.Pending().Send(events, "d.go:23")
	sub.Pending().Lock(mu, "d.go:28")
	b.Meta("testgoid", "1")
	r := analyze(t, b)
	f := want(t, r, "deadlock", Actual, "d.go:23", "cycle=d.go:28", "held lock=d.go:21")
	if !strings.Contains(f.Message, "the test goroutine is blocked sending on") {
		t.Errorf("message %q should name the test goroutine", f.Message)
	}
	if n := countKind(r, "deadlock"); n != 1 {
		t.Errorf("%d deadlock findings, want the stuck state as one: %v", n, summaries(r))
	}
	want(t, r, "mixed-deadlock", Actual, "d.go:23", "partner's lock=d.go:28")
	wantNo(t, r, "leak-chan", "leak-mutex")
	if bugs := Group(r.Findings); len(bugs) != 1 {
		t.Errorf("%d bugs, want one: %v", len(bugs), summaries(r))
	}
}

func countKind(r *Result, kind string) int {
	n := 0
	for _, f := range r.Findings {
		if f.Kind == kind {
			n++
		}
	}
	return n
}

// The only blocked operation is on a nil channel (a range over a nil channel).
func TestLeakNilChanAlone(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	mon := m.Go("n.go:33")
	mon.Pending().RecvOK(tracetest.NilChan, "n.go:50")
	m.End()
	r := analyze(t, b)
	want(t, r, "leak-nil-chan", Actual, "n.go:50")
}

// leak_select, bad schedule: nobody will close stop; the select is blocked forever. That is
// a leak-select, not also a select case without partner.
func TestLeakSelectNotCaseWithoutPartner(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	updates := m.MakeChan(1, "s.go:50")
	stop := m.MakeChan(0, "s.go:49")
	w := m.Go("s.go:51")
	u := m.Go("s.go:52")
	u.Send(updates, "s.go:52")
	u.End()
	w.Select("s.go:28", 0, tracetest.RecvValueCase(updates), tracetest.RecvCase(stop))
	w.Pending().Select("s.go:28", 0, tracetest.RecvValueCase(updates), tracetest.RecvCase(stop))
	m.End()
	r := analyze(t, b)
	want(t, r, "leak-select", Actual, "s.go:28")
	if len(r.Findings) != 1 {
		t.Errorf("findings %v", summaries(r))
	}
}

// With the test goroutine named, the deadlock is the component of goroutines it waits for
// (here the partner holding the mutex it requests); an unrelated idle goroutine blocked on
// its own channel is not part of it.
func TestDeadlockComponentOfTheTestGoroutine(t *testing.T) {
	b := tracetest.New().Meta("exit", "signal").Meta("testgoid", "1")
	m := b.Main()
	a, bb := b.Mutex(), b.Mutex()
	idleCh := m.MakeChan(0, "d.go:2")
	other := m.Go("d.go:3")
	idle := m.Go("d.go:4")
	other.Lock(a, "d.go:10")
	m.Lock(bb, "d.go:20")
	other.Pending().Lock(bb, "d.go:11")
	m.Pending().Lock(a, "d.go:21")
	idle.Pending().Recv(idleCh, "d.go:30")
	r := analyze(t, b)
	want(t, r, "deadlock", Actual, "d.go:11", "cycle=d.go:21")
	if n := countKind(r, "deadlock"); n != 1 {
		t.Errorf("%d deadlock findings, want the cycle as one: %v", n, summaries(r))
	}
	for _, f := range r.Findings {
		if f.Kind == "deadlock" {
			for _, p := range f.Positions {
				if p.Line == 30 {
					t.Errorf("the idle goroutine is not part of the deadlock: %s", summary(f))
				}
			}
		}
	}
	// without testgoid every blocked operation is reported
	b.Meta("testgoid", "")
	want(t, analyze(t, b), "deadlock", Actual, "d.go:30")
}

// leak_mutex under a flow delay, the exit racing the released producer: it requested its
// Lock but was still runnable (or running) when the process ended. The mutex's holder has
// ended, so the Lock can never complete: a leak even though the requester had not parked.
func TestLeakMutexRequesterNotParked(t *testing.T) {
	for _, status := range []uint32{1, 2} {
		b := tracetest.New()
		m := b.Main()
		mu := b.Mutex()
		p := m.Go("q.go:37")
		m.Lock(mu, "q.go:25")
		p.Pending().Lock(mu, "q.go:19")
		p.State(status, "")
		m.End()
		r := analyze(t, b)
		f := want(t, r, "leak-mutex", Actual, "q.go:19", "held lock=q.go:25")
		if !strings.Contains(f.Message, "has ended") || strings.Contains(f.Message, "proven") {
			t.Errorf("status %d: message %q should say the holder ended, and not claim a GC proof", status, f.Message)
		}
		if len(r.Findings) != 1 {
			t.Errorf("status %d: findings %v", status, summaries(r))
		}
	}
}

// A requester caught before it parked is not a leak when its Lock could still complete:
// the mutex is free, its holder is alive (it may unlock), another live goroutine that used
// the mutex may unlock it, or an RLock waits on a mutex only readers hold.
func TestLockNotParkedCouldComplete(t *testing.T) {
	cases := map[string]func(b *tracetest.Builder) *tracetest.G{
		"mutex free": func(b *tracetest.Builder) *tracetest.G {
			m := b.Main()
			mu := b.Mutex()
			p := m.Go("q.go:37")
			m.Lock(mu, "q.go:25")
			m.Unlock(mu, "q.go:26")
			p.Pending().Lock(mu, "q.go:19")
			m.End()
			return p
		},
		"holder alive": func(b *tracetest.Builder) *tracetest.G {
			m := b.Main()
			mu := b.Mutex()
			h := m.Go("q.go:36")
			p := m.Go("q.go:37")
			h.Lock(mu, "q.go:25")
			h.State(4, "sleep")
			p.Pending().Lock(mu, "q.go:19")
			m.End()
			return p
		},
		"another user alive": func(b *tracetest.Builder) *tracetest.G {
			m := b.Main()
			mu := b.Mutex()
			h := m.Go("q.go:36")
			u := m.Go("q.go:38")
			p := m.Go("q.go:37")
			u.Lock(mu, "q.go:40")
			u.Unlock(mu, "q.go:41")
			u.State(4, "sleep")
			h.Lock(mu, "q.go:25")
			h.End()
			p.Pending().Lock(mu, "q.go:19")
			m.End()
			return p
		},
		"rlock on read-held": func(b *tracetest.Builder) *tracetest.G {
			m := b.Main()
			mu := b.RWMutex()
			h := m.Go("q.go:36")
			p := m.Go("q.go:37")
			h.RLock(mu, "q.go:25")
			h.End()
			p.Pending().RLock(mu, "q.go:19")
			m.End()
			return p
		},
		"own lock": func(b *tracetest.Builder) *tracetest.G {
			m := b.Main()
			mu := b.Mutex()
			p := m.Go("q.go:37")
			p.Lock(mu, "q.go:18")
			p.Pending().Lock(mu, "q.go:19")
			m.End()
			return p
		},
	}
	for name, build := range cases {
		b := tracetest.New()
		build(b).State(1, "")
		if r := analyze(t, b); len(r.Findings) != 0 {
			t.Errorf("%s: findings %v, want none", name, summaries(r))
		}
	}
}

// The rule is about a Lock on a write-held mutex: a Lock waiting on a mutex that an ended
// goroutine left read-locked is abandoned too, and an RLock on a write-held one.
func TestLeakMutexNotParkedReadWrite(t *testing.T) {
	for _, readHeld := range []bool{true, false} {
		b := tracetest.New()
		m := b.Main()
		mu := b.RWMutex()
		h := m.Go("q.go:36")
		p := m.Go("q.go:37")
		if readHeld {
			h.RLock(mu, "q.go:25")
		} else {
			h.Lock(mu, "q.go:25")
		}
		h.End()
		if readHeld {
			p.Pending().Lock(mu, "q.go:19")
		} else {
			p.Pending().RLock(mu, "q.go:19")
		}
		p.State(2, "")
		m.End()
		want(t, analyze(t, b), "leak-mutex", Actual, "q.go:19", "held lock=q.go:25")
	}
}

// A corrupt trace with an event outside every goroutine (G 0) on the object a blocked
// operation waits on is analyzed, not a panic.
func TestLeakUserWithoutGoroutine(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	c := m.MakeChan(0, "l.go:1")
	w := m.Go("l.go:2")
	s := w.Send(c, "l.go:3")
	m.Recv(c, "l.go:4")
	m.Pending().Recv(c, "l.go:5")
	tr := b.Trace()
	tr.Events[s.Index].G = 0
	res := Analyze(tr)
	if res == nil {
		t.Fatal("no result")
	}
}

// A run killed at its time limit while the test waited for work still under way (a worker
// in a system call that holds a slot of a semaphore channel; workers that will call Done)
// was slow, not stuck: no deadlock. The same blocked operations with every goroutine
// blocked are a deadlock.
func TestSlowRunIsNotADeadlock(t *testing.T) {
	semaphore := func(workerBusy bool) *Result {
		b := tracetest.New().Meta("exit", "signal").Meta("testgoid", "1")
		m := b.Main()
		sem := m.MakeChan(1, "b.go:5")
		done := m.MakeChan(0, "b.go:6")
		w := m.Go("b.go:8")
		w.Send(sem, "b.go:9") // holds the slot
		if workerBusy {
			w.State(3, "") // in a system call: building
		} else {
			w.Pending().Recv(done, "b.go:10")
		}
		w2 := m.Go("b.go:8")
		w2.Pending().Send(sem, "b.go:9")
		m.Pending().Recv(done, "b.go:20")
		return analyze(t, b)
	}
	if r := semaphore(true); hasKind(r, "deadlock") {
		t.Errorf("slow semaphore run reported as a deadlock: %v", summaries(r))
	}
	if r := semaphore(false); !hasKind(r, "deadlock") {
		t.Errorf("stuck semaphore run not reported: %v", summaries(r))
	}

	waitGroup := func(workerBusy bool) *Result {
		b := tracetest.New().Meta("exit", "signal").Meta("testgoid", "1")
		m := b.Main()
		wg := b.WaitGroup()
		ch := m.MakeChan(0, "w.go:4")
		m.Add(wg, 1, "w.go:5")
		w := m.Go("w.go:6") // will call Done when its work is over
		if workerBusy {
			w.State(4, "sleep")
		} else {
			w.Pending().Recv(ch, "w.go:7")
		}
		m.Pending().Wait(wg, "w.go:9")
		return analyze(t, b)
	}
	if r := waitGroup(true); hasKind(r, "deadlock") {
		t.Errorf("slow WaitGroup run reported as a deadlock: %v", summaries(r))
	}
	if r := waitGroup(false); !hasKind(r, "deadlock") {
		t.Errorf("stuck WaitGroup run not reported: %v", summaries(r))
	}

	// The test goroutine itself still running when killed.
	b := tracetest.New().Meta("exit", "signal").Meta("testgoid", "1")
	m := b.Main()
	c := m.MakeChan(0, "r.go:3")
	other := m.Go("r.go:4")
	other.Pending().Recv(c, "r.go:5")
	m.State(2, "")
	if r := analyze(t, b); hasKind(r, "deadlock") {
		t.Errorf("run killed while the test goroutine ran reported as a deadlock: %v", summaries(r))
	}
}

func hasKind(r *Result, kind string) bool {
	for _, f := range r.Findings {
		if f.Kind == kind {
			return true
		}
	}
	return false
}

// A run killed at its time limit while the test goroutine was inside a select with a default
// (held there by a schedule, or running): that select cannot block, so the goroutine was
// busy and the run slow, not stuck (pond's TestPoolMetrics: "blocked in a select" at a
// notify-if-anyone-waits select).
func TestNonBlockingSelectIsNotBlocked(t *testing.T) {
	b := tracetest.New().Meta("exit", "signal").Meta("testgoid", "1")
	m := b.Main()
	waiters := m.MakeChan(0, "p.go:3")
	other := m.Go("p.go:4")
	other.Pending().Recv(waiters, "p.go:5")
	m.Pending().Select("p.go:9", tracetest.Default, tracetest.SendCase(waiters))
	r := analyze(t, b)
	if hasKind(r, "deadlock") {
		t.Errorf("an incomplete select with a default reported as stuck: %v", summaries(r))
	}
	if g := r.Goroutines[0]; g.Blocked >= 0 {
		t.Errorf("the test goroutine counts as blocked at event %d", g.Blocked)
	}
}

// A goroutine the test starts that blocks on a channel only the test uses is the test's own
// leak: test-only, a warning. The same goroutine blocked in the package's code, or on a
// channel the package's code made, is an ordinary leak: an error.
func TestLeakTestOnly(t *testing.T) {
	for _, c := range []struct {
		name             string
		makeAt, blockAt  string
		testOnly         bool
		spawnAt, partner string
	}{
		{"test channel", "p_test.go:10", "p_test.go:12", true, "p_test.go:11", "p_test.go:14"},
		{"blocked in package code", "p_test.go:10", "p.go:5", false, "p_test.go:11", "p_test.go:14"},
		{"package's channel", "p.go:3", "p_test.go:12", false, "p_test.go:11", "p_test.go:14"},
		{"package's partner", "p_test.go:10", "p_test.go:12", false, "p_test.go:11", "p.go:8"},
		{"started by the package", "p_test.go:10", "p_test.go:12", false, "p.go:9", "p_test.go:14"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := tracetest.New()
			m := b.Main()
			ch := m.MakeChan(0, c.makeAt)
			w := m.Go(c.spawnAt)
			p := m.Go("p_test.go:13")
			p.Recv(ch, c.partner)
			m.Send(ch, "p_test.go:15")
			p.End()
			w.Pending().Send(ch, c.blockAt)
			m.End()
			r := analyze(t, b)
			f := want(t, r, "leak-chan", Actual, c.blockAt)
			wantSev := SeverityError
			if c.testOnly {
				wantSev = SeverityWarning
			}
			if f.TestOnly != c.testOnly || f.Severity != wantSev || strings.Contains(f.Message, "test-only") != c.testOnly {
				t.Errorf("test only %v, severity %s, message %q; want test only %v, severity %s", f.TestOnly, f.Severity, f.Message, c.testOnly, wantSev)
			}
		})
	}
}

// A Lock waiting for a holder parked in a WaitGroup's Wait that the GC's leak detection
// found reachable (lingering, status waiting) is lingering too: watermill's GoChannel.Close
// holds closedLock across subscribersWg.Wait, and a second Close waits for closedLock. With
// the holder proven leaked (status leaked), the Lock is a leak.
func TestLeakMutexHolderLingers(t *testing.T) {
	for _, leaked := range []bool{false, true} {
		b := tracetest.New().Meta("leakgc", "1")
		m := b.Main()
		mu := b.Mutex()
		wg := b.WaitGroup()
		m.Add(wg, 1, "p.go:196")
		closer := m.Go("r.go:471")
		second := m.Go("r.go:471")
		closer.Lock(mu, "p.go:320")
		closer.Pending().Wait(wg, "p.go:331")
		second.Pending().Lock(mu, "p.go:320")
		if leaked {
			closer.State(10, "sync.WaitGroup.Wait")
		} else {
			closer.State(4, "sync.WaitGroup.Wait")
		}
		second.State(4, "sync.Mutex.Lock")
		r := analyze(t, b)
		if leaked {
			want(t, r, "leak-mutex", Actual, "p.go:320")
		} else {
			wantNo(t, r, "leak-mutex")
		}
	}
}
