// Package silentfail reproduces survey 8's silent failures in go-playground/pool
// (TestLimitedBatchCancelItemsThrownAway, TestUnlimitedBatchCancelItemsThrownAway): the
// test's assertion library (gopkg.in/go-playground/assert.v1) prints its message with
// fmt.Printf and calls t.FailNow, so the failing run's output has "--- FAIL" and no
// t.Error line. The test depends on an order it does not enforce and fails in some runs;
// the campaign counted those runs as "fail" and reported "0 bugs", exit status 0.
package silentfail

import (
	"fmt"
	"sync"
	"testing"
)

// notEqual mimics assert.v1's NotEqual: message on stdout, then FailNow.
func notEqual(t *testing.T, a, b int) {
	if a == b {
		fmt.Printf("silentfail_test.go: %v should not be equal %v\n", a, b)
		t.FailNow()
	}
}

func TestQueuedBeforeCancel(t *testing.T) {
	var mu sync.Mutex
	queued, cancelled := 0, false
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 4; i++ {
			mu.Lock()
			if !cancelled {
				queued++
			}
			mu.Unlock()
		}
	}()
	mu.Lock()
	cancelled = true // the test assumes this comes before the producer queued everything
	mu.Unlock()
	wg.Wait()
	notEqual(t, queued, 4)
}
