package stuck

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestStuckRWLockCycle: a lock cycle through an RWMutex's read side, beside a
// goroutine that keeps working. flush holds conn and read-locks index; apply
// read-holds index and locks cache; refresh holds cache and locks conn; prune's
// Lock of index waits for apply's read lock, and flush's RLock queues behind
// prune (a pending writer blocks new readers).
func TestStuckRWLockCycle(t *testing.T) {
	var conn, cache sync.Mutex
	var index sync.RWMutex
	go busy()
	applyHeld, freshHeld, flushHeld, all := make(chan bool), make(chan bool), make(chan bool), make(chan bool)
	var wg sync.WaitGroup
	wg.Add(4)
	go func() { // apply
		defer wg.Done()
		index.RLock()
		close(applyHeld)
		<-all
		cache.Lock() // @rw.apply
		cache.Unlock()
		index.RUnlock()
	}()
	go func() { // refresh
		defer wg.Done()
		cache.Lock()
		close(freshHeld)
		<-all
		conn.Lock() // @rw.refresh
		conn.Unlock()
		cache.Unlock()
	}()
	go func() { // prune
		defer wg.Done()
		<-applyHeld
		index.Lock() // @rw.prune
		index.Unlock()
	}()
	go func() { // flush
		defer wg.Done()
		conn.Lock()
		close(flushHeld)
		<-applyHeld
		// a TryRLock fails once prune's Lock is pending (apply keeps its read lock)
		for index.TryRLock() {
			index.RUnlock()
			runtime.Gosched()
		}
		index.RLock() // @rw.flush
		index.RUnlock()
		conn.Unlock()
	}()
	<-applyHeld
	<-freshHeld
	<-flushHeld
	close(all)
	wg.Wait()
}

// TestNotStuckRWHandoff: first's read lock of x is released by another
// goroutine (allowed), so first no longer read-holds x. second holds c and
// locks x, waiting for a real reader that sleeps; first waits for c. Taken as
// a reader of x, first would close a cycle with second that does not exist.
func TestNotStuckRWHandoff(t *testing.T) {
	var x sync.RWMutex
	var c sync.Mutex
	readerIn, handed, released, secondHeld := make(chan bool), make(chan bool), make(chan bool), make(chan bool)
	go func() { // a real reader
		x.RLock()
		close(readerIn)
		time.Sleep(notStuckFor)
		x.RUnlock()
	}()
	<-readerIn
	go func() { // the goroutine that releases first's read lock
		<-handed
		x.RUnlock()
		close(released)
	}()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // first
		defer wg.Done()
		x.RLock()
		handed <- true
		<-released
		<-secondHeld
		c.Lock()
		c.Unlock()
	}()
	go func() { // second
		defer wg.Done()
		<-released
		c.Lock()
		close(secondHeld)
		x.Lock() // waits for the sleeping reader only
		x.Unlock()
		c.Unlock()
	}()
	wg.Wait()
}
