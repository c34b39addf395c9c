package timing

import (
	"testing"
	"time"
)

// Orders its feeder before its close by the clock: a feeder late by 20 ms sends on the
// closed channel. The test's own timing, not a bug of the package.
func TestFeedsBeforeClose(t *testing.T) {
	ch := make(chan int, 1)
	go func() {
		ch <- 1
	}()
	time.Sleep(20 * time.Millisecond)
	close(ch)
	for range ch {
	}
}

// Pings a worker after giving it 20 ms to start: a worker late by that much makes Ping
// block forever, which is Ping's bug whatever the clock.
func TestPingsStartedWorker(t *testing.T) {
	s := NewService()
	s.Start()
	time.Sleep(20 * time.Millisecond)
	s.Ping()
}
