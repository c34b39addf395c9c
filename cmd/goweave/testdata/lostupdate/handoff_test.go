package lostupdate

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

func run(t *testing.T, queue func(*conn) error) {
	for i := range 200 {
		c := &conn{}
		queued := &handoff{pending: true}
		c.state.Store(queued)
		var wg sync.WaitGroup
		var queuedDone atomic.Bool
		wg.Add(2)
		go func() { defer wg.Done(); _ = queue(c); queuedDone.Store(true) }()
		go func() {
			defer wg.Done()
			// the worker clears a hand-off it has been given: after the queue's swap
			for c.state.Load() == queued && !queuedDone.Load() {
				runtime.Gosched()
			}
			c.clear()
		}()
		wg.Wait()
		if c.pending() {
			t.Fatalf("iteration %d: the hand-off is pending again after it was cleared", i)
		}
	}
}

func TestQueueRollback(t *testing.T) { run(t, (*conn).queue) }

func TestQueueRollbackSafe(t *testing.T) { run(t, (*conn).queueSafe) }

func TestFlagsClosedTwice(t *testing.T) {
	for range 200 {
		var f flags
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); f.close() }()
		go func() { defer wg.Done(); f.close() }()
		wg.Wait()
		if !f.closed.Load() {
			t.Fatal("not closed")
		}
	}
}

func TestValueRollback(t *testing.T) {
	for i := range 200 {
		c := &valueConn{}
		queued := &handoff{pending: true}
		c.state.Store(queued)
		var wg sync.WaitGroup
		var queuedDone atomic.Bool
		wg.Add(2)
		go func() { defer wg.Done(); _ = c.queue(); queuedDone.Store(true) }()
		go func() {
			defer wg.Done()
			for c.state.Load() == queued && !queuedDone.Load() {
				runtime.Gosched()
			}
			c.clear()
		}()
		wg.Wait()
		if s := c.state.Load().(*handoff); s.pending {
			t.Fatalf("iteration %d: the hand-off is pending again after it was cleared", i)
		}
	}
}
