package events

import (
	"sync"
	"testing"
)

func TestMutex(t *testing.T) {
	var mu sync.Mutex
	mu.Lock()              // @mutex.lock
	failed := mu.TryLock() // @mutex.tryfail
	mu.Unlock()            // @mutex.unlock
	ok := mu.TryLock()     // @mutex.tryok
	mu.Unlock()
	if failed || !ok {
		t.Fatal(failed, ok)
	}
	deferred(&mu)
	var l sync.Locker = &mu
	l.Lock() // @mutex.iface
	l.Unlock()
	lock := mu.Lock
	lock() // @mutex.methodvalue
	mu.Unlock()
	var e sync.Locker = &embeds{}
	e.Lock() // @mutex.embedded
}

type embeds struct{ sync.Mutex }

func deferred(mu *sync.Mutex) {
	mu.Lock()
	defer mu.Unlock() // @mutex.defer
}

func TestRWMutex(t *testing.T) {
	var rw sync.RWMutex
	rw.RLock()          // @rw.rlock
	ok := rw.TryRLock() // @rw.tryrlock
	rw.RUnlock()        // @rw.runlock
	rw.RUnlock()
	rw.Lock()   // @rw.lock
	rw.Unlock() // @rw.unlock
	if !ok {
		t.Fatal(ok)
	}
}

func TestOnce(t *testing.T) {
	var once sync.Once
	n := 0
	once.Do(func() { n++ }) // @once.first
	once.Do(func() { n++ }) // @once.second
	if n != 1 {
		t.Fatal(n)
	}
}

func TestWaitGroup(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(2) // @wg.add
	for range 2 {
		go func() {
			defer wg.Done() // @wg.done
		}()
	}
	wg.Wait()        // @wg.wait
	wg.Go(func() {}) // @wg.go
	wg.Wait()
}

func TestCond(t *testing.T) {
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	ready := false
	go func() {
		mu.Lock()
		ready = true
		cond.Signal() // @cond.signal
		mu.Unlock()
	}()
	mu.Lock()
	for !ready {
		cond.Wait() // @cond.wait
	}
	mu.Unlock()
	cond.Broadcast() // @cond.broadcast
}

func TestOncePanics(t *testing.T) {
	var once sync.Once
	func() {
		defer func() { _ = recover() }()
		once.Do(func() { panic("in f") }) // @once.panics
	}()
	once.Do(func() {}) // @once.after
}
