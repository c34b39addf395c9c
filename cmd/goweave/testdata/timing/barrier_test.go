package timing

import (
	"sync"
	"testing"
	"time"
)

// Gives its own worker 20 ms to start waiting, then releases it only if it is waiting: a
// worker late by 20 ms is never released, and the test waits for it forever. The test's
// own timing (its goroutines, its sleep), not a bug of the package.
func TestReleasesWaitingWorker(t *testing.T) {
	var mu sync.Mutex
	waiting := false
	release, done := make(chan struct{}), make(chan struct{})
	go func() {
		mu.Lock()
		waiting = true
		mu.Unlock()
		<-release
		close(done)
	}()
	time.Sleep(20 * time.Millisecond)
	mu.Lock()
	w := waiting
	mu.Unlock()
	if w {
		close(release)
	}
	<-done
}

// Pings a worker after giving it 20 ms to start: a worker late by that much makes Ping
// block forever, which is Ping's bug whatever the clock.
func TestPingsStartedWorker(t *testing.T) {
	s := NewService()
	s.Start()
	time.Sleep(20 * time.Millisecond)
	s.Ping()
}
