package analysis

import (
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// A sender blocked on a full buffer is completed by the receive that frees its slot, and the
// runtime stamps the sender first: in completion order send k+capacity precedes receive k.
// Receive k must still join send k's clocks, not those of the later send that reused its
// ring slot (survey 10, vardius/message-bus Example_second: three handlers forward into one
// buffered channel the example drains and then closes; every send was reported as a
// send-on-closed that "may run after" the close).
func TestRuleBufferedSendStampedBeforeItsFreeingReceive(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	c := m.MakeChan(1, "a.go:1")
	p1 := m.Go("a.go:2")
	p2 := m.Go("a.go:3")
	s1 := p1.Send(c, "a.go:10")           // fills the buffer
	s2 := p2.Pending().Send(c, "a.go:10") // blocks: the buffer is full
	s2.Complete()                         // completed by r1, stamped before it
	r1 := m.RecvBare(c, "a.go:20")
	r2 := m.RecvBare(c, "a.go:20")
	cl := m.Close(c, "a.go:21")
	hb(t, b, [][2]*tracetest.Op{{s1, r1}, {s1, cl}, {s2, r2}, {s2, cl}}, nil)

	findings := analyze(t, b).Findings
	for _, f := range findings {
		if f.Kind == "send-on-closed" {
			t.Errorf("every send was received before the close: %s", f.Message)
		}
	}
}

// The other half of the same stamp order: receive k happens before the completion of send
// k+capacity, so what the woken sender does next is ordered after the receive (a buffered
// channel used as a semaphore: the releaser's work before <-sem is visible to the goroutine
// whose sem <- x it unblocked).
func TestRuleFreeingReceiveBeforeTheSendItCompleted(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	c := m.MakeChan(1, "a.go:1")
	p1 := m.Go("a.go:2")
	p2 := m.Go("a.go:3")
	p1.Send(c, "a.go:10")
	s2 := p2.Pending().Send(c, "a.go:10")
	r1 := m.Pending().RecvBare(c, "a.go:20")
	s2.Complete() // completed by r1, stamped before it
	r1.Complete()
	next := p2.Send(m.MakeChan(5, "a.go:4"), "a.go:11")
	hb(t, b, [][2]*tracetest.Op{{r1, next}, {r1, s2}}, nil)
}

// A semaphore channel guarding a send and the close of another channel (the close only
// under the semaphore, after the sender released it): the send is ordered before the close
// when the closer blocked on the full semaphore and was woken by the sender's release, so
// no send-on-closed is predicted (eval/survey/survey10/min/semaphore: one predicted in 29
// of 30 runs before the edge).
func TestRuleSemaphoreOrdersTheCloseAfterTheGuardedSend(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	sem := m.MakeChan(1, "a.go:1")
	out := m.MakeChan(1, "a.go:2")
	p := m.Go("a.go:3")
	p.Send(sem, "a.go:10")
	acquire := m.Pending().Send(sem, "a.go:20") // blocks: p holds the semaphore
	send := p.Send(out, "a.go:11")
	release := p.Pending().RecvBare(sem, "a.go:12")
	acquire.Complete() // completed by the release, stamped before it
	release.Complete()
	cl := m.Close(out, "a.go:21")
	m.RecvBare(sem, "a.go:22")
	hb(t, b, [][2]*tracetest.Op{{send, cl}}, nil)
	for _, f := range analyze(t, b).Findings {
		if f.Kind == "send-on-closed" {
			t.Errorf("the semaphore orders the send before the close: %s", f.Message)
		}
	}
}
