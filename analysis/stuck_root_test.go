package analysis

import (
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// leakedLockPool is a stuck run of a pool whose Get returned holding p.mu (locked at
// pool.go:28 by a worker that then exited): the other workers queue behind it at the lines
// given, and the test goroutine waits for them all in wg.Wait.
func leakedLockPool(lines ...string) *tracetest.Builder {
	b := tracetest.New().Meta("exit", "signal").Meta("stuck", "global").Meta("testgoid", "1")
	m := b.Main()
	wg := b.WaitGroup()
	mu := b.Mutex()
	m.Add(wg, int64(len(lines)+1), "pool_test.go:16")
	leaker := m.Go("pool_test.go:18")
	var ws []*tracetest.G
	for range lines {
		ws = append(ws, m.Go("pool_test.go:18"))
	}
	leaker.Lock(mu, "pool.go:28")
	leaker.Done(wg, "pool_test.go:19")
	leaker.End()
	for k, w := range ws {
		w.Pending().Lock(mu, lines[k])
	}
	m.Pending().Wait(wg, "pool_test.go:28")
	return b
}

// One leaked lock, goroutines queued behind it at several lines: one deadlock finding, at
// the Lock that was never unlocked, the blocked lines as related positions, and the same
// fingerprint whichever lines the queued goroutines happened to block at.
func TestStuckLeakedLockIsOneFinding(t *testing.T) {
	r := analyze(t, leakedLockPool("pool.go:28", "pool.go:28", "pool.go:51", "pool.go:62", "pool.go:28"))
	f := want(t, r, "deadlock", Actual, "pool.go:28", "also blocked=pool.go:51", "also blocked=pool.go:62", "also blocked=pool_test.go:28")
	if f.Positions[0].Role != "lock never released" {
		t.Errorf("primary role %q, want the lock never released", f.Positions[0].Role)
	}
	for _, s := range []string{"never released", "has exited without unlocking", "6 other goroutine(s) wait for it", "3 goroutines locking"} {
		if !strings.Contains(f.Message, s) {
			t.Errorf("message %q lacks %q", f.Message, s)
		}
	}
	if n := countKind(r, "deadlock"); n != 1 {
		t.Errorf("%d deadlock findings, want one per stuck state: %v", n, summaries(r))
	}
	other := analyze(t, leakedLockPool("pool.go:51", "pool.go:51"))
	g := want(t, other, "deadlock", Actual, "pool.go:28")
	if g.Fingerprint != f.Fingerprint {
		t.Errorf("fingerprints differ between runs of the same leaked lock: %s and %s", f.Fingerprint, g.Fingerprint)
	}
	if n := countKind(other, "deadlock"); n != 1 {
		t.Errorf("%d deadlock findings, want one: %v", n, summaries(other))
	}
}

// The holder of the lock the others queue behind is itself blocked, on a receive nothing
// can complete: the root is that receive, named with the lock it holds.
func TestStuckHolderBlockedOnChannel(t *testing.T) {
	b := tracetest.New().Meta("exit", "deadlock").Meta("testgoid", "1")
	m := b.Main()
	wg := b.WaitGroup()
	mu := b.Mutex()
	reply := m.MakeChan(0, "pool.go:10")
	m.Add(wg, 3, "pool_test.go:16")
	h, w1, w2 := m.Go("pool_test.go:18"), m.Go("pool_test.go:18"), m.Go("pool_test.go:18")
	h.Lock(mu, "pool.go:28")
	h.Pending().Recv(reply, "pool.go:30")
	w1.Pending().Lock(mu, "pool.go:51")
	w2.Pending().Lock(mu, "pool.go:62")
	m.Pending().Wait(wg, "pool_test.go:28")
	r := analyze(t, b)
	f := want(t, r, "deadlock", Actual, "pool.go:30", "held lock=pool.go:28", "also blocked=pool.go:51", "also blocked=pool.go:62", "also blocked=pool_test.go:28")
	if !strings.Contains(f.Message, "no goroutine left can complete it") || !strings.Contains(f.Message, "locked at pool.go:28") {
		t.Errorf("message %q should say nothing can complete the receive and name the held lock", f.Message)
	}
	if n := countKind(r, "deadlock"); n != 1 {
		t.Errorf("%d deadlock findings, want one: %v", n, summaries(r))
	}
}

// Goroutines blocked on a channel nobody will ever close, at two lines: one stuck state,
// one finding, whose fingerprint is the channel's (where it was made), not its lines'.
func TestStuckOnChannelNobodyUses(t *testing.T) {
	run := func(lines ...string) Finding {
		b := tracetest.New().Meta("exit", "deadlock").Meta("testgoid", "1")
		m := b.Main()
		wg := b.WaitGroup()
		done := m.MakeChan(0, "w.go:5")
		m.Add(wg, int64(len(lines)), "w_test.go:9")
		var ws []*tracetest.G
		for range lines {
			ws = append(ws, m.Go("w_test.go:10"))
		}
		for k, w := range ws {
			w.Pending().Recv(done, lines[k])
		}
		m.Pending().Wait(wg, "w_test.go:14")
		r := analyze(t, b)
		if n := countKind(r, "deadlock"); n != 1 {
			t.Errorf("%v: %d deadlock findings, want one: %v", lines, n, summaries(r))
		}
		for _, f := range r.Findings {
			if f.Kind == "deadlock" {
				if !strings.Contains(summary(f), "w_test.go:14") {
					t.Errorf("the test's Wait is not related: %s", summary(f))
				}
				return f
			}
		}
		return Finding{}
	}
	a := run("w.go:20", "w.go:20", "w.go:31")
	b := run("w.go:31")
	if a.Fingerprint != b.Fingerprint || a.Fingerprint == "" {
		t.Errorf("fingerprints %q and %q: want one for the channel nothing closes", a.Fingerprint, b.Fingerprint)
	}
}

// A test that returned while goroutines queued behind a lock its worker never released: one
// leak-mutex finding for the lock, the other queued lines related, whose fingerprint is the
// held lock's whichever goroutines queued behind it.
func TestLeakMutexQueueIsOneFinding(t *testing.T) {
	run := func(lines ...string) *Result {
		b := tracetest.New()
		m := b.Main()
		mu := b.Mutex()
		leaker := m.Go("pool_test.go:18")
		var ws []*tracetest.G
		for range lines {
			ws = append(ws, m.Go("pool_test.go:18"))
		}
		leaker.Lock(mu, "pool.go:28")
		leaker.End()
		for k, w := range ws {
			w.Pending().Lock(mu, lines[k])
		}
		m.End()
		return analyze(t, b)
	}
	r := run("pool.go:51", "pool.go:28", "pool.go:62", "pool.go:28")
	f := want(t, r, "leak-mutex", Actual, "pool.go:51", "held lock=pool.go:28", "also blocked=pool.go:62")
	if !strings.Contains(f.Message, "3 other goroutine(s) wait for the same lock") {
		t.Errorf("message %q does not count the goroutines queued behind the lock", f.Message)
	}
	if n := countKind(r, "leak-mutex"); n != 1 {
		t.Errorf("%d leak-mutex findings, want one per lock never released: %v", n, summaries(r))
	}
	g := want(t, run("pool.go:62"), "leak-mutex", Actual, "pool.go:62", "held lock=pool.go:28")
	if g.Fingerprint != f.Fingerprint {
		t.Errorf("fingerprints %s and %s: want one for the lock never released", f.Fingerprint, g.Fingerprint)
	}
}

// A chain: goroutines queue behind mu, whose holder waits for a reply that the only
// replier will send once it gets mu2, a lock whose holder exited. The root is mu2's Lock
// never released; everything else waits for it.
func TestStuckChainToTheLeakedLock(t *testing.T) {
	b := tracetest.New().Meta("exit", "deadlock").Meta("testgoid", "1")
	m := b.Main()
	mu, mu2 := b.Mutex(), b.Mutex()
	reply := m.MakeChan(0, "c.go:3")
	leaker, replier, holder, queued := m.Go("c_test.go:5"), m.Go("c_test.go:6"), m.Go("c_test.go:7"), m.Go("c_test.go:8")
	leaker.Lock(mu2, "c.go:10")
	leaker.End()
	replier.Send(reply, "c.go:20") // an earlier reply: the replier is the channel's sender
	holder.Recv(reply, "c.go:30")
	holder.Lock(mu, "c.go:31")
	holder.Pending().Recv(reply, "c.go:32")
	replier.Pending().Lock(mu2, "c.go:21")
	queued.Pending().Lock(mu, "c.go:40")
	m.Pending().Recv(reply, "c_test.go:9")
	r := analyze(t, b)
	want(t, r, "deadlock", Actual, "c.go:10", "also blocked=c.go:21", "also blocked=c.go:32", "also blocked=c.go:40")
	if n := countKind(r, "deadlock"); n != 1 {
		t.Errorf("%d deadlock findings, want one: %v", n, summaries(r))
	}
}

// hystrix-go's TestContextHandling stuck run (survey 9): the command's run won against its
// timeout, so nothing will ever send on errChan, which the test goroutine waits for; the
// metrics' Monitor goroutine, started inside the test's GetCircuit, served two updates and
// is idle on its Updates channel, a service loop waiting for input. The root is the test's
// receive, which no goroutine left can complete, not the idle Monitor with the test
// "waiting for it".
func TestStuckRootIsNotAnIdleServiceLoop(t *testing.T) {
	b := tracetest.New().Meta("exit", "signal").Meta("stuck", "global").Meta("testgoid", "1")
	m := b.Main()
	updates := m.MakeChan(2000, "metrics.go:30")
	monitor := m.Go("metrics.go:35")
	errChan := m.MakeChan(1, "hystrix.go:127")
	cmd := m.Go("hystrix.go:140")
	cmd.Send(updates, "circuit.go:185")
	monitor.Recv(updates, "metrics.go:53")
	cmd.Send(updates, "circuit.go:185")
	monitor.Recv(updates, "metrics.go:53")
	cmd.End()
	monitor.Pending().Recv(updates, "metrics.go:53")
	m.Pending().Recv(errChan, "hystrix_test.go:416")
	r := analyze(t, b)
	f := want(t, r, "deadlock", Actual, "hystrix_test.go:416")
	if strings.Contains(summary(f), "metrics.go:53") || strings.Contains(f.Message, "wait for it") {
		t.Errorf("the idle Monitor is part of the finding: %s\n%s", summary(f), f.Message)
	}
	if n := countKind(r, "deadlock"); n != 1 {
		t.Errorf("%d deadlock findings, want one: %v", n, summaries(r))
	}
	// A goroutine the test started that never got its input (its first receive) is still
	// what the test waits for: the result it would send never comes.
	b = tracetest.New().Meta("exit", "signal").Meta("stuck", "global").Meta("testgoid", "1")
	m = b.Main()
	in := m.MakeChan(0, "w.go:5")
	out := m.MakeChan(0, "w.go:6")
	w := m.Go("w.go:7")
	w.Pending().Recv(in, "w.go:8")
	m.Pending().Recv(out, "w_test.go:12")
	r = analyze(t, b)
	want(t, r, "deadlock", Actual, "w.go:8", "also blocked=w_test.go:12")
	// A loop the test waits for by a WaitGroup (its worker never got the close that ends
	// it) stays in the stuck state: the test waits for it, and it for the test's close.
	b = tracetest.New().Meta("exit", "signal").Meta("stuck", "global").Meta("testgoid", "1")
	m = b.Main()
	wg := b.WaitGroup()
	jobs := m.MakeChan(1, "w.go:5")
	m.Add(wg, 1, "w_test.go:9")
	w = m.Go("w_test.go:10")
	m.Send(jobs, "w_test.go:11")
	w.Recv(jobs, "w.go:20")
	w.Pending().Recv(jobs, "w.go:20")
	m.Pending().Wait(wg, "w_test.go:14")
	r = analyze(t, b)
	want(t, r, "deadlock", Actual, "w.go:20", "cycle=w_test.go:14") // the test sent it jobs: each waits for the other
}
