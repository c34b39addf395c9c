// Package e2e is a small concurrent test that fuzzer/mutate's end-to-end test records with
// the goweave runtime: two workers lock a mutex and send on a buffered channel, the test
// goroutine receives both values and then selects between a ready channel and a timer.
package e2e

import (
	"sync"
	"testing"
	"time"
)

func TestWorkers(t *testing.T) {
	var mu sync.Mutex
	total := 0
	results := make(chan int, 2)
	for i := 1; i <= 2; i++ {
		go func(v int) {
			mu.Lock()
			total += v
			mu.Unlock()
			results <- v
		}(i)
	}
	a, b := <-results, <-results
	ready := make(chan int, 1)
	ready <- a + b
	select {
	case s := <-ready:
		mu.Lock()
		if s != total {
			t.Errorf("sum %d, total %d", s, total)
		}
		mu.Unlock()
	case <-time.After(time.Second):
		t.Error("timeout")
	}
}
