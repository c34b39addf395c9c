// A test's T used by goroutines: joined before the test returns (nothing to report), or
// not (the use may run after the test completed and panic), and SkipNow from a goroutine.
package tafterend

import (
	"sync"
	"testing"
)

func work(n int) int { return n * 2 }

// Each worker logs through t and the test waits for all of them: nothing to report.
func TestWorkersJoined(t *testing.T) {
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Logf("worker %d: %d", i, work(i))
		}()
	}
	wg.Wait()
}

// The bug: the worker logs its result, but the test returns without waiting for it. In
// most runs the log comes first; in another it comes after the test completed and panics.
func TestWorkerNotJoined(t *testing.T) {
	started := make(chan struct{})
	go func() {
		close(started)
		t.Logf("result %d", work(21)) // want "t-used-after-test"
	}()
	<-started
}

// The bug: the goroutine calls t.Skip, which ends the goroutine, not the test: the test goes
// on with a backend it found missing.
func TestSkipInGoroutine(t *testing.T) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		if !backendUp() {
			t.Skip("no backend") // want "failnow-off-test"
		}
	}()
	<-done
}

func backendUp() bool { return false }
