// Package timedwaitlock reproduces survey 8's false mixed-deadlock in watermill's router
// (TestRouter_wait_for_handlers_before_shutdown): Close holds closedLock while it waits for
// the workers with a timeout (a select on their WaitGroup and a timer), and IsClosed takes
// closedLock. The test blocks its worker on purpose and returns while Close waits, so at
// the end of the run the select is blocked under the lock and IsClosed waits for it. Neither
// waits forever: the timer ends the select (Close then returns "timeout") and IsClosed gets
// the lock. The worker's own block is the test's (a test-only leak), not a deadlock.
package timedwaitlock

import (
	"sync"
	"testing"
	"time"
)

type group struct {
	closedLock sync.Mutex
	closed     bool
	workers    sync.WaitGroup
	timeout    time.Duration
}

func (g *group) Go(f func()) {
	g.workers.Add(1)
	go func() {
		defer g.workers.Done()
		f()
	}()
}

// Close waits for the workers at most g.timeout, holding closedLock as watermill's router does.
func (g *group) Close() bool {
	g.closedLock.Lock()
	defer g.closedLock.Unlock()
	g.closed = true
	done := make(chan struct{}, 1)
	go func() {
		g.workers.Wait()
		done <- struct{}{}
	}()
	select {
	case <-done:
		return true
	case <-time.After(g.timeout):
		return false
	}
}

func (g *group) IsClosed() bool {
	g.closedLock.Lock()
	defer g.closedLock.Unlock()
	return g.closed
}

func TestCloseWaitsForBusyWorker(t *testing.T) {
	g := &group{timeout: 30 * time.Second}
	started := make(chan struct{})
	block := make(chan struct{}) // never closed: the worker stays busy, as the test wants
	g.Go(func() {
		close(started)
		<-block
	})
	<-started

	closed := make(chan bool, 1)
	go func() { closed <- g.Close() }()
	go func() { _ = g.IsClosed() }() // a watcher, as the router's watchAllHandlersStopped

	select {
	case <-closed:
		t.Fatal("Close returned while a worker was busy")
	case <-time.After(100 * time.Millisecond):
		// Close is still waiting for the worker: what the test checks
	}
}
