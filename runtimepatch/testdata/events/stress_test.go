package events

import (
	"sync"
	"testing"
	"time"
)

// TestStress mixes every kind of channel operation, selects and mutexes
// across goroutines; the runtimepatch test checks the trace's invariants
// (send/receive pairing per channel, unique stamps, lock alternation).
func TestStress(t *testing.T) {
	unbuf, buf := make(chan int), make(chan int, 3)
	done := make(chan struct{})
	var mu sync.Mutex
	var rw sync.RWMutex
	var wg sync.WaitGroup
	const workers, iters = 6, 300
	shared := 0
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range iters {
				switch (w + i) % 6 {
				case 0:
					select {
					case unbuf <- i:
					case buf <- i:
					case <-done:
						return
					case <-time.After(time.Millisecond):
					}
				case 1:
					select {
					case v := <-unbuf:
						_ = v
					case v, ok := <-buf:
						_, _ = v, ok
					case <-time.After(time.Millisecond):
					}
				case 2:
					select {
					case buf <- i:
					default:
					}
				case 3:
					mu.Lock()
					shared++
					mu.Unlock()
				case 4:
					rw.RLock()
					_ = shared
					rw.RUnlock()
					if mu.TryLock() {
						mu.Unlock()
					}
				case 5:
					rw.Lock()
					shared--
					rw.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	close(done)
	for {
		select {
		case <-buf:
		default:
			return
		}
	}
}
