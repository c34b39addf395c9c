package replay

import (
	"testing"
	"time"
)

// TestSelectClockPreference: case a is always ready, so a free run takes it;
// the other case is a 5 ms timer's, which a preference for it waits for.
func TestSelectClockPreference(t *testing.T) {
	a := make(chan int, 1)
	a <- 1
	select { // @clock.select
	case v := <-a:
		t.Log("took a", v)
	case <-time.After(5 * time.Millisecond): // @clock.after
		t.Log("timed out")
	}
}

// TestSelectTickerPreference: as TestSelectClockPreference, with a 5 ms
// ticker's case.
func TestSelectTickerPreference(t *testing.T) {
	a := make(chan int, 1)
	a <- 1
	tk := time.NewTicker(5 * time.Millisecond) // @tick.ticker
	defer tk.Stop()
	select { // @tick.select
	case v := <-a:
		t.Log("took a", v)
	case <-tk.C:
		t.Log("ticked")
	}
}

// TestDueTimer: a timer due before it is set (as a short one set by a slow
// goroutine is).
func TestDueTimer(t *testing.T) {
	tm := time.NewTimer(0) // @due.timer
	<-tm.C
}
