package campaign

import (
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace/tracetest"
	"github.com/goweave/goweave/fuzzer/run"
)

// abba is the predicted cycle of the tests below: a Lock at k.go:11 holding the lock taken
// at k.go:10, a Lock at k.go:21 holding the lock taken at k.go:20.
var abba = Finding{Finding: analysis.Finding{Kind: "cyclic-deadlock", Confidence: analysis.Predicted, Positions: []analysis.Position{
	{Role: "lock", File: tracetest.Dir + "k.go", Line: 11}, {Role: "held lock", File: tracetest.Dir + "k.go", Line: 20},
	{Role: "held lock", File: tracetest.Dir + "k.go", Line: 10}, {Role: "lock", File: tracetest.Dir + "k.go", Line: 21},
}}}

// judged is Judge's verdict on f for a run with trace b that ended with status s.
func judged(f Finding, b *tracetest.Builder, s run.Status) Verdict {
	tr := b.Trace()
	return Judge(f, &AnalyzedRun{Run: &run.Run{Status: s}, Recorded: tr, Analysis: analysis.Analyze(tr)})
}

// The cycle in the final state: each goroutine parked in Lock of the mutex the other holds.
func TestJudgeConfirmsACycleInTheFinalState(t *testing.T) {
	b := tracetest.New().Meta("exit", "signal").Meta("stuck", "lockcycle")
	m := b.Main()
	mu1, mu2 := b.Mutex(), b.Mutex()
	a, c := m.Go("k.go:1"), m.Go("k.go:2")
	a.Lock(mu1, "k.go:10")
	c.Lock(mu2, "k.go:20")
	a.Pending().Lock(mu2, "k.go:11")
	c.Pending().Lock(mu1, "k.go:21")
	v := judged(abba, b, run.StatusDeadlock)
	if !v.Confirmed || !strings.Contains(v.Detail, "lock cycle in the run's final state") || !strings.Contains(v.Detail, "its holder (locked at k.go:20)") {
		t.Errorf("verdict %v, want confirmed by the cycle, saying who holds what", v)
	}
}

// A run the stuck check ended with goroutines parked at the cycle's lines, but stuck
// elsewhere: each waits for a mutex (other instances than each other's) held by a third
// goroutine blocked in a receive nobody sends to. The stuck-check verdict and goroutines
// blocked at every position of the cycle confirmed it before; nothing shows the cycle.
func TestJudgeDoesNotConfirmARunStuckElsewhere(t *testing.T) {
	b := tracetest.New().Meta("exit", "signal").Meta("stuck", "global")
	m := b.Main()
	mu1, mu2, mu3, mu4 := b.Mutex(), b.Mutex(), b.Mutex(), b.Mutex()
	a, c, z := m.Go("k.go:1"), m.Go("k.go:2"), m.Go("k.go:3")
	a.Lock(mu1, "k.go:10")
	c.Lock(mu2, "k.go:20")
	z.Lock(mu3, "z.go:1")
	z.Lock(mu4, "z.go:2")
	z.Pending().Recv(m.MakeChan(0, "z.go:3"), "z.go:4")
	a.Pending().Lock(mu3, "k.go:11")
	c.Pending().Lock(mu4, "k.go:21")
	if v := judged(abba, b, run.StatusDeadlock); v.Confirmed {
		t.Errorf("verdict %v, want not confirmed: the goroutines wait for a third one", v)
	}
}

// The cycle's goroutines parked at its lines, each waiting for the other, but one of them
// started a goroutine after taking its lock (it may have handed the lock to it, as
// prometheus's summary hands its mutex to a flusher): not proven.
func TestJudgeDoesNotConfirmAPossiblyHandedOffLock(t *testing.T) {
	b := tracetest.New().Meta("exit", "signal").Meta("stuck", "lockcycle")
	m := b.Main()
	mu1, mu2 := b.Mutex(), b.Mutex()
	a, c := m.Go("k.go:1"), m.Go("k.go:2")
	a.Lock(mu1, "k.go:10")
	a.Go("k.go:12") // the flusher, still running
	c.Lock(mu2, "k.go:20")
	a.Pending().Lock(mu2, "k.go:11")
	c.Pending().Lock(mu1, "k.go:21")
	if v := judged(abba, b, run.StatusDeadlock); v.Confirmed {
		t.Errorf("verdict %v, want not confirmed: the holder of mu1 may hand it off", v)
	}
}

// A Lock still pending in the trace whose goroutine is runnable was granted the mutex: not
// part of a cycle.
func TestJudgeDoesNotConfirmARunnableWaiter(t *testing.T) {
	b := tracetest.New().Meta("exit", "signal")
	m := b.Main()
	mu1, mu2 := b.Mutex(), b.Mutex()
	a, c := m.Go("k.go:1"), m.Go("k.go:2")
	a.Lock(mu1, "k.go:10")
	c.Lock(mu2, "k.go:20")
	a.Pending().Lock(mu2, "k.go:11")
	c.Pending().Lock(mu1, "k.go:21")
	c.State(1, "") // runnable
	if v := judged(abba, b, run.StatusTimeout); v.Confirmed {
		t.Errorf("verdict %v, want not confirmed", v)
	}
}

// Read-lock recursion: a goroutine read-holding an RWMutex parked in RLock of it behind a
// writer parked in Lock, which waits for the first read lock.
func TestJudgeConfirmsRecursiveReadLock(t *testing.T) {
	f := Finding{Finding: analysis.Finding{Kind: "cyclic-deadlock", Confidence: analysis.Predicted, Positions: []analysis.Position{
		{Role: "lock", File: tracetest.Dir + "r.go", Line: 2}, {Role: "writer lock", File: tracetest.Dir + "r.go", Line: 5}, {Role: "held lock", File: tracetest.Dir + "r.go", Line: 1},
	}}}
	b := tracetest.New().Meta("exit", "signal").Meta("stuck", "lockcycle")
	m := b.Main()
	rw := b.RWMutex()
	a, w := m.Go("r.go:0"), m.Go("r.go:4")
	a.RLock(rw, "r.go:1")
	w.Pending().Lock(rw, "r.go:5")
	a.Pending().RLock(rw, "r.go:2")
	if v := judged(f, b, run.StatusDeadlock); !v.Confirmed || !strings.Contains(v.Detail, "a writer blocked at r.go:5") {
		t.Errorf("verdict %v, want confirmed through the pending writer", v)
	}
}

// transfer(a, b) beside transfer(b, a): both Locks of the cycle at one line, which needs two
// goroutines parked there; one goroutine parked there is not the cycle.
func TestJudgeSameLineCycle(t *testing.T) {
	f := Finding{Finding: analysis.Finding{Kind: "cyclic-deadlock", Confidence: analysis.Predicted, Positions: []analysis.Position{
		{Role: "lock", File: tracetest.Dir + "t.go", Line: 6}, {Role: "held lock", File: tracetest.Dir + "t.go", Line: 5},
		{Role: "held lock", File: tracetest.Dir + "t.go", Line: 5}, {Role: "lock", File: tracetest.Dir + "t.go", Line: 6},
	}}}
	for _, both := range []bool{true, false} {
		b := tracetest.New().Meta("exit", "signal").Meta("stuck", "lockcycle")
		m := b.Main()
		mu1, mu2 := b.Mutex(), b.Mutex()
		a, c := m.Go("t.go:1"), m.Go("t.go:2")
		a.Lock(mu1, "t.go:5")
		c.Lock(mu2, "t.go:5")
		a.Pending().Lock(mu2, "t.go:6")
		if both {
			c.Pending().Lock(mu1, "t.go:6")
		} else {
			c.Pending().Lock(mu1, "t.go:9") // elsewhere: not the predicted cycle's line
		}
		if v := judged(f, b, run.StatusDeadlock); v.Confirmed != both {
			t.Errorf("both at the line %v: verdict %v", both, v)
		}
	}
}
