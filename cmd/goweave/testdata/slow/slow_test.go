// Package slow has a test slower than goweave's time limit in its tests (-timeout 2s) that
// keeps working until it is done: slow, not hung.
package slow

import (
	"sync"
	"testing"
	"time"
)

// TestWorkerPool hands jobs to four workers for four seconds, each job a few milliseconds of
// computation, and waits for them.
func TestWorkerPool(t *testing.T) {
	jobs := make(chan int)
	results := make(chan uint64, 64)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range jobs {
				results <- work(n)
			}
		}()
	}
	var sum uint64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for r := range results {
			sum += r
		}
	}()
	end := time.Now().Add(4 * time.Second)
	for n := 0; time.Now().Before(end); n++ {
		jobs <- n
	}
	close(jobs)
	wg.Wait()
	close(results)
	<-done
	t.Logf("sum %d", sum)
}

// work computes for a few milliseconds.
func work(n int) uint64 {
	x := uint64(n)
	for i := range 2_000_000 {
		x = x*6364136223846793005 + uint64(i)
	}
	return x
}
