package ordercause

import (
	"math/rand/v2"
	"sync"
	"testing"
)

// TestLimitedRunRuns fails when the job's removal runs before its queued run asks for it.
func TestLimitedRunRuns(t *testing.T) {
	s := NewScheduler()
	ran := make(chan struct{}, 1)
	s.Add(1, 1, func() { ran <- struct{}{} })
	s.Schedule(1)
	s.Stop() // the queued run is done, or was dropped
	select {
	case <-ran:
	default:
		t.Fatal("the job never ran")
	}
}

// TestReconnectAbortsWhenCloseWon fails when Reconnect checked closing before Close marked
// it, though it got the lock only after Close.
func TestReconnectAbortsWhenCloseWon(t *testing.T) {
	c := &Conn{}
	c.reconnecting.Lock()
	done := make(chan error, 1)
	go func() { done <- c.Reconnect() }()
	c.Close()
	c.reconnecting.Unlock()
	if err := <-done; err != ErrClosed {
		t.Fatalf("expected ErrClosed, got %v", err)
	}
}

// TestUnluckyDraw fails by a random number, whatever order its goroutines took: no order
// is its cause.
func TestUnluckyDraw(t *testing.T) {
	var mu sync.Mutex
	var seen []int
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		mu.Lock()
		seen = append(seen, 1)
		mu.Unlock()
	}()
	go func() {
		defer wg.Done()
		mu.Lock()
		seen = append(seen, 2)
		mu.Unlock()
	}()
	wg.Wait()
	if len(seen) != 2 {
		t.Fatal("lost a goroutine")
	}
	if rand.IntN(3) == 0 {
		t.Fatal("unlucky draw")
	}
}
