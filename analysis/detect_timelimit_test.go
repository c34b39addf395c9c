package analysis

import (
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// timeLimitRun is a run stopped at its time limit in which the test goroutine started a
// sleeper that was still busy: slow, as far as the wait-for graph can tell. gc says
// whether the GC's leak detection ran at the time limit (Go 1.26 and later).
func timeLimitRun(gc bool) (*tracetest.Builder, *tracetest.G) {
	b := tracetest.New().Meta("exit", "signal").Meta("signal", "3").Meta("testgoid", "1").Meta("timelimit", "1")
	if gc {
		b.Meta("leakgc", "1")
	}
	m := b.Main()
	m.Go("h.go:5").State(4, "sleep")
	return b, m
}

// The test goroutine waits on a channel nothing can reach: with the GC's verdict at the
// time limit it is a proven leak-chan at the receive; without it (Go 1.25) the trace alone
// cannot tell a missing sender from a slow one, and nothing is reported.
func TestTimeLimitProvenLeak(t *testing.T) {
	for _, gc := range []bool{true, false} {
		b, m := timeLimitRun(gc)
		jobs := m.MakeChan(0, "h.go:8")
		m.State(10, "chan receive").Pending().Recv(jobs, "h.go:9")
		r := analyze(t, b)
		if !gc {
			wantNo(t, r)
			continue
		}
		f := want(t, r, "leak-chan", Actual, "h.go:9")
		if !strings.Contains(f.Message, "time limit") || !strings.Contains(f.Message, "proven") {
			t.Errorf("message does not say it was proven at the time limit: %s", f.Message)
		}
		wantNo(t, r, "deadlock")
	}
}

// A blocked goroutine the GC did not mark leaked (what it waits on is still reachable: the
// sleeper may send) is no finding.
func TestTimeLimitReachableIsNoLeak(t *testing.T) {
	b, m := timeLimitRun(true)
	jobs := m.MakeChan(0, "h.go:8")
	m.State(4, "chan receive").Pending().Recv(jobs, "h.go:9")
	wantNo(t, analyze(t, b))
}

// Two goroutines each hold the mutex the other requests, while a sleeper keeps the run
// busy: one deadlock finding at the cycle (its Locks), proven by the trace alone on every
// release, with the test's Wait for them (proven leaked by the GC where it ran) related.
func TestTimeLimitLockCycle(t *testing.T) {
	for _, gc := range []bool{true, false} {
		b, m := timeLimitRun(gc)
		wg := b.WaitGroup()
		a, c := b.Mutex(), b.Mutex()
		m.Add(wg, 2, "h.go:20")
		g1, g2 := m.Go("h.go:21"), m.Go("h.go:22")
		g1.Lock(a, "h.go:30")
		g2.Lock(c, "h.go:31")
		g1.State(4, "sync.Mutex.Lock").Pending().Lock(c, "h.go:32")
		g2.State(4, "sync.Mutex.Lock").Pending().Lock(a, "h.go:33")
		status := uint32(4)
		if gc {
			status = 10
		}
		m.State(status, "sync.WaitGroup.Wait").Pending().Wait(wg, "h.go:25")
		r := analyze(t, b)
		n := 0
		for _, f := range r.Findings {
			if f.Kind == "deadlock" {
				n++
				if !strings.Contains(f.Message, "time limit") {
					t.Errorf("message does not say the run was stopped at its time limit: %s", f.Message)
				}
			}
		}
		f := want(t, r, "deadlock", Actual, "h.go:33", "cycle=h.go:32", "held lock=h.go:31", "held lock=h.go:30")
		if hasWait := strings.Contains(summary(f), "also blocked=h.go:25"); hasWait != gc {
			t.Errorf("gc=%v: the Wait the GC proved leaked listed %v: %s", gc, hasWait, summary(f))
		}
		if n != 1 {
			t.Errorf("gc=%v: %d deadlock findings, want the stuck state as one: %v", gc, n, summaries(r))
		}
		wantNo(t, r, "leak-mutex", "leak-waitgroup")
		if bugs := Group(r.Findings); len(bugs) != 1 {
			t.Errorf("gc=%v: %d bugs, want the cycle as one: %v", gc, len(bugs), summaries(r))
		}
	}
}

// Goroutines blocked on mutexes held by a goroutine that is not blocked (it may still
// unlock) are not a cycle: a slow run stays unreported.
func TestTimeLimitHeldByBusyIsNoDeadlock(t *testing.T) {
	b, m := timeLimitRun(false)
	a := b.Mutex()
	holder := m.Go("h.go:40")
	holder.Lock(a, "h.go:41")
	holder.State(4, "sleep")
	w := m.Go("h.go:42")
	w.State(4, "sync.Mutex.Lock").Pending().Lock(a, "h.go:43")
	m.Pending().Lock(a, "h.go:44")
	wantNo(t, analyze(t, b), "deadlock")
}

// stuckRun is a run the patched runtime ended itself when it found it stuck (META
// stuck=kind), after running the GC's leak detection, while a sleeper was still busy.
func stuckRun(kind string) (*tracetest.Builder, *tracetest.G) {
	b := tracetest.New().Meta("exit", "signal").Meta("signal", "3").Meta("testgoid", "1").Meta("stuck", kind).Meta("leakgc", "1")
	m := b.Main()
	m.Go("h.go:5").State(4, "sleep")
	return b, m
}

// A run ended when the runtime found a lock cycle is explained as a run stopped at its time
// limit is: the cycle, each Lock with the other, and the Wait the GC proved leaked; the
// message says why the run ended.
func TestStuckRunLockCycle(t *testing.T) {
	b, m := stuckRun("lockcycle")
	wg := b.WaitGroup()
	a, c := b.Mutex(), b.Mutex()
	m.Add(wg, 2, "h.go:20")
	g1, g2 := m.Go("h.go:21"), m.Go("h.go:22")
	g1.Lock(a, "h.go:30")
	g2.Lock(c, "h.go:31")
	g1.State(10, "sync.Mutex.Lock").Pending().Lock(c, "h.go:32")
	g2.State(10, "sync.Mutex.Lock").Pending().Lock(a, "h.go:33")
	m.State(10, "sync.WaitGroup.Wait").Pending().Wait(wg, "h.go:25")
	r := analyze(t, b)
	f := want(t, r, "deadlock", Actual, "h.go:33", "cycle=h.go:32", "also blocked=h.go:25")
	if !strings.Contains(f.Message, "the runtime found the lock cycle") || strings.Contains(f.Message, "time limit") || !strings.Contains(f.Message, "in a lock cycle of 2") {
		t.Errorf("message does not say the runtime found the lock cycle: %s", f.Message)
	}
}

// A run ended when the GC proved the test goroutine leaked: the proven leak at its receive.
func TestStuckRunLeaked(t *testing.T) {
	b, m := stuckRun("leaked")
	jobs := m.MakeChan(0, "h.go:8")
	m.State(10, "chan receive").Pending().Recv(jobs, "h.go:9")
	f := want(t, analyze(t, b), "leak-chan", Actual, "h.go:9")
	if !strings.Contains(f.Message, "proven") {
		t.Errorf("message does not say the leak was proven: %s", f.Message)
	}
}
