package sleepcheck

import (
	"sync"
	"testing"
	"time"
)

// Work waits for work while Close runs: it must then say ErrClosed.
func TestWorkAfterClose(t *testing.T) {
	g := &Guard{}
	g.work.Lock()
	done := make(chan error, 1)
	go func() { done <- g.Work() }()
	time.Sleep(100 * time.Millisecond)
	g.Close()
	g.work.Unlock()
	if err := <-done; err != ErrClosed {
		t.Fatalf("Work during Close: %v, want ErrClosed", err)
	}
}

// Fails whatever the schedule: two increments are never three.
func TestAlwaysWrong(t *testing.T) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	n := 0
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			n++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if n != 3 {
		t.Fatalf("n = %d, want 3", n)
	}
}
