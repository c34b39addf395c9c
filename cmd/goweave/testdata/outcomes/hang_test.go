// Package outcomes holds tests whose runs end badly in ways no detector of one trace
// reports: a hang (a receive nothing can satisfy while a sleeper keeps the process
// alive, a spin loop), a slow test that does finish, and a panic that only some
// schedules reach.
package outcomes

import (
	"sync"
	"testing"
	"time"
)

// TestWaitsForever blocks on a channel nobody sends on; the sleeper keeps the runtime from
// calling it a deadlock.
func TestWaitsForever(t *testing.T) {
	results := make(chan int)
	go func() {
		for {
			time.Sleep(10 * time.Millisecond)
		}
	}()
	<-results
}

var spins int

// TestSpins never returns.
func TestSpins(t *testing.T) {
	for spins >= 0 {
		spins++
		if spins < 0 {
			spins = 0
		}
	}
}

// TestSlowButFinishes takes ten seconds and passes.
func TestSlowButFinishes(t *testing.T) {
	for range 10 {
		time.Sleep(time.Second)
	}
}

type config struct{ name string }

type server struct {
	mu  sync.Mutex
	cfg *config
}

// TestWorkerBeforeConfig passes when the test goroutine configures the server before the
// worker reads the configuration, and panics on a nil dereference when the worker wins the
// lock first.
func TestWorkerBeforeConfig(t *testing.T) {
	s := &server{}
	done := make(chan string)
	go func() {
		s.mu.Lock()
		name := s.cfg.name
		s.mu.Unlock()
		done <- name
	}()
	s.mu.Lock()
	s.cfg = &config{name: "primary"}
	s.mu.Unlock()
	if name := <-done; name != "primary" {
		t.Errorf("worker saw %q", name)
	}
}
