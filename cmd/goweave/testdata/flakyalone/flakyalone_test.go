// Package flakyalone has a test whose failure is the program's: which of two workers takes
// the lock first decides it, with or without another process of the package beside it.
// goweave fuzz -p 2 runs two of its processes at once; the rule that a failure of an
// overlapped run is not evidence until a run fails alone (fuzzer/campaign/overlap.go) must
// still report it: the failing schedule, rerun alone, fails again.
package flakyalone

import (
	"sync"
	"testing"
)

func TestFirstWorker(t *testing.T) {
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	for i := 1; i <= 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if order[0] != 1 {
		t.Errorf("worker %d went first, want worker 1", order[0])
	}
}
