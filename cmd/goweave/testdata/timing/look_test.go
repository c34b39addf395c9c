package timing

import (
	"testing"
	"time"
)

// Gives a worker 1 ms to close ca, but works for 2 ms between setting its timer and
// looking: by then both cases are ready and the select picks either. The test's clock,
// not a bug.
func TestChecksClosedInTime(t *testing.T) {
	ca := make(chan struct{})
	go close(ca)
	timeout := time.After(time.Millisecond)
	for start := time.Now(); time.Since(start) < 2*time.Millisecond; {
		// the test's own work, longer than its timeout
	}
	select {
	case <-ca:
	case <-timeout:
		t.Fatal("ca was not closed in time")
	}
}
