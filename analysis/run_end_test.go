package analysis

import (
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// Survey 7's class 14 (amqp091-go TestConfirmMultipleOrdersDeliveryTags): a heartbeater
// blocked in a select on the connection's done channel, which the test's deferred Close
// would close; a timer's function calls t.Fatalf after the test completed and the process
// dies of testing's panic, whose message ends "send deadlock", while the test goroutine is
// runnable. The process crashed; it was not stuck: no deadlock, no leak.
func TestPanicWithDeadlockInItsMessageIsNotStuck(t *testing.T) {
	b := tracetest.New().Meta("exit", "panic").
		Meta("message", "Log in goroutine after TestConfirmMultipleOrdersDeliveryTags has completed: send deadlock")
	m := b.Main()
	done := m.MakeChan(0, "connection.go:250")
	beat := m.MakeChan(1, "connection.go:251")
	hb := m.Go("connection.go:1306")
	hb.Pending().Select("connection.go:1005", 0, tracetest.RecvCase(done), tracetest.RecvValueCase(beat))
	tm := b.Timer()
	m.TimerSet(tm, "client_test.go:88", true)
	b.TimerGo(tm, "client_test.go:88") // running: the panicking goroutine
	m.Send(beat, "client_test.go:95")  // the test goroutine is not blocked
	b.Meta("testgoid", "1")
	r := analyze(t, b)
	wantNo(t, r, "deadlock", "leak-select", "leak-chan")
}

// The same blocked goroutine in a run the runtime found stuck is a deadlock.
func TestRuntimeDeadlockMessagesAreStuck(t *testing.T) {
	for _, meta := range [][2]string{
		{"deadlock", "all goroutines are asleep - deadlock!"},
		{"fatal", "all goroutines are asleep - deadlock!"},
		{"panic", "test timed out after 10m0s"},
		{"signal", ""},
	} {
		b := tracetest.New().Meta("exit", meta[0]).Meta("message", meta[1])
		m := b.Main()
		done := m.MakeChan(0, "c.go:1")
		w := m.Go("c.go:2")
		w.Pending().Select("c.go:3", 0, tracetest.RecvCase(done))
		m.Pending().Recv(done, "c.go:4")
		r := analyze(t, b)
		if countKind(r, "deadlock") == 0 {
			t.Errorf("exit=%s %q: no deadlock finding: %v", meta[0], meta[1], summaries(r))
		}
	}
}

// A lock cycle among the goroutines blocked at a crash could never have moved (only a
// holder unlocks): it is still a deadlock, and says how the run ended.
func TestLockCycleAtACrashIsADeadlock(t *testing.T) {
	b := tracetest.New().Meta("exit", "panic").Meta("message", "boom")
	m := b.Main()
	mu1, mu2 := b.Mutex(), b.Mutex()
	a := m.Go("k.go:1")
	c := m.Go("k.go:2")
	a.Lock(mu1, "k.go:10")
	c.Lock(mu2, "k.go:20")
	a.Pending().Lock(mu2, "k.go:11")
	c.Pending().Lock(mu1, "k.go:21")
	m.Recv(m.MakeChan(1, "k.go:3"), "k.go:4") // runnable, as is the panicking goroutine
	r := analyze(t, b)
	f := want(t, r, "deadlock", Actual, "k.go:")
	if !strings.Contains(f.Message, `ended (by a panic: "boom")`) {
		t.Errorf("message %q should say how the run ended", f.Message)
	}
	wantNo(t, r, "leak-mutex")
	if bugs := Group(r.Findings); len(bugs) != 1 {
		t.Errorf("%d bugs, want the cycle as one: %v", len(bugs), summaries(r))
	}
}

// A goroutine waiting for a mutex it locked and then handed to a goroutine it started (a
// flusher, as prometheus's summary does) is not a cycle of one: the flusher, still
// running when the run crashed, unlocks it.
func TestHandedOffLockAtACrashIsNoDeadlock(t *testing.T) {
	b := tracetest.New().Meta("exit", "panic").Meta("message", "boom")
	m := b.Main()
	mu := b.Mutex()
	a := m.Go("h.go:1")
	a.Lock(mu, "h.go:10")
	a.Go("h.go:11") // the flusher: computes, then unlocks mu
	a.Pending().Lock(mu, "h.go:12")
	r := analyze(t, b)
	wantNo(t, r, "deadlock", "leak-mutex")
}
