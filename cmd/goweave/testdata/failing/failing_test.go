// Package failing holds tests whose failure goweave's scheduling does not cause: a test
// that fails in every run and one that panics in every run (go test fails them too), and
// an Example whose output depends on the schedule (flaky, like a test's failure).
package failing

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

func sum(xs []int) int {
	s := 0
	for _, x := range xs[1:] { // the bug: skips the first element
		s += x
	}
	return s
}

// TestAlwaysFails fails in every schedule.
func TestAlwaysFails(t *testing.T) {
	if got := sum([]int{1, 2, 3}); got != 6 {
		t.Fatalf("sum = %d, want 6", got)
	}
}

type registry struct{ names map[string]int }

// TestAlwaysPanics writes to a nil map in every schedule.
func TestAlwaysPanics(t *testing.T) {
	var r registry
	r.names["a"] = 1
}

// Example_order prints who took the lock first: the Example's goroutine, which usually
// runs on while the worker it started waits for a processor, or the worker, when the
// schedule delays the Example's Lock.
func Example_order() {
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		mu.Lock()
		order = append(order, "worker")
		mu.Unlock()
	}()
	mu.Lock()
	order = append(order, "example")
	mu.Unlock()
	wg.Wait()
	fmt.Println(strings.Join(order, " "))
	// Output: example worker
}
