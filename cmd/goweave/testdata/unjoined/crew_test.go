package unjoined

import (
	"runtime"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// The workers are still running when Stop returns: goleak's retries hide it.
func TestStopNotWaiting(t *testing.T) {
	defer goleak.VerifyNone(t)
	c := NewCrew(3)
	c.Do(func() {})
	c.Stop()
}

// Stop waits for the workers: nothing to report.
func TestStopWaits(t *testing.T) {
	defer goleak.VerifyNone(t)
	c := NewJoinedCrew(3)
	c.Do(func() {})
	c.Stop()
}

// No leftover-goroutine check: the workers may outlive the test.
func TestNoCheck(t *testing.T) {
	c := NewCrew(2)
	c.Do(func() {})
	c.Stop()
}

// The same check by hand, polling runtime.NumGoroutine like goleak does.
func TestNumGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	c := NewCrew(2)
	c.Do(func() {})
	c.Stop()
	for i := 0; runtime.NumGoroutine() > before; i++ {
		if i == 200 {
			t.Fatalf("%d goroutines left over", runtime.NumGoroutine()-before)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A goroutine of the test's own, that it ends without waiting: the test's business, not
// the package's.
func TestOwnGoroutine(t *testing.T) {
	defer goleak.VerifyNone(t)
	done := make(chan struct{})
	go func() { <-done }()
	c := NewJoinedCrew(1)
	c.Do(func() {})
	c.Stop()
	close(done)
}
