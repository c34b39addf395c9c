// Package pinatomic holds a bug whose window lies between two atomic operations of one
// goroutine, with two atomics of another goroutine inside it: a lock-free mailbox whose
// reader gives up when it finds the mailbox closed, without a last look at the slot.
package pinatomic

import (
	"sync/atomic"
	"testing"
)

type mailbox struct {
	slot   atomic.Pointer[string]
	closed atomic.Bool
	wake   chan struct{} // one pending wake-up at most
	done   chan struct{}
	got    []string
}

func open() *mailbox {
	m := &mailbox{wake: make(chan struct{}, 1), done: make(chan struct{})}
	go m.read()
	return m
}

func (m *mailbox) read() {
	defer close(m.done)
	for {
		if s := m.slot.Swap(nil); s != nil { // @swap
			m.got = append(m.got, *s)
			continue
		}
		// The bug: a Put and a Close between the Swap above and this Load lose the
		// message (the reader returns with it in the slot).
		if m.closed.Load() { // @load
			return
		}
		<-m.wake
	}
}

func (m *mailbox) Put(s string) {
	m.slot.Store(&s) // @store
	m.poke()
}

func (m *mailbox) Close() {
	m.closed.Store(true) // @close
	m.poke()
	<-m.done
}

func (m *mailbox) poke() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// TestMailbox passes unless the reader's Swap comes before the Put's Store and its Load after
// the Close's Store.
func TestMailbox(t *testing.T) {
	m := open()
	m.Put("hello")
	m.Close()
	if len(m.got) != 1 {
		t.Fatalf("got %q, want the one message put before Close", m.got)
	}
}
