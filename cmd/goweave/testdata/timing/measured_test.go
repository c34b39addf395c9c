package timing

import (
	"testing"
	"time"
)

// Measures how long each handoff from a worker takes and bounds it by the clock: a worker
// delayed by more than the bound fails it. A wall-clock assertion (timing), not a bug.
func TestMeasuresHandoff(t *testing.T) {
	for range 5 {
		start := time.Now()
		done, quit := make(chan struct{}), make(chan struct{})
		go func() {
			select {
			case done <- struct{}{}:
			case <-quit:
			}
		}()
		<-done
		close(quit)
		if took := time.Since(start); took > 20*time.Millisecond {
			t.Fatalf("a handoff took %v, want at most 20ms", took)
		}
	}
}
