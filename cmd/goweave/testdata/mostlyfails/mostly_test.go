// Package mostlyfails holds a test whose failure depends on the schedule but comes in
// most runs: a select among six ready cases, of which Go picks one at random, fails the
// test unless it took the first (5 in 6 runs fail, under plain go test as under goweave).
// It is flaky, not broken.
package mostlyfails

import (
	"sync"
	"testing"
)

// first says which of six workers finished first, as a select among their done channels
// sees it once all have.
func first() int {
	done := make([]chan struct{}, 6)
	var wg sync.WaitGroup
	for i := range done {
		done[i] = make(chan struct{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			close(done[i])
		}()
	}
	wg.Wait()
	select {
	case <-done[0]:
		return 0
	case <-done[1]:
		return 1
	case <-done[2]:
		return 2
	case <-done[3]:
		return 3
	case <-done[4]:
		return 4
	case <-done[5]:
		return 5
	}
}

// TestFirstWorker expects worker 0 first: true in 1 run of 6.
func TestFirstWorker(t *testing.T) {
	if got := first(); got != 0 {
		t.Fatalf("worker %d finished first, want worker 0", got)
	}
}
