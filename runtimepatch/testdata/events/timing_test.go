package events

import (
	"context"
	"testing"
	"time"
)

// Waits bounded by the clock: a sleep, a channel timer that fires, a function timer that
// fires, a context's timeout that expires, a timer stopped before it fires, and a ticker
// (not recorded: a period is no deadline).
func TestTimedWaits(t *testing.T) {
	time.Sleep(2 * time.Millisecond)   // @timed.sleep
	<-time.After(3 * time.Millisecond) // @timed.after
	done := make(chan struct{})
	time.AfterFunc(4*time.Millisecond, func() { close(done) }) // @timed.afterfunc
	<-done
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond) // @timed.ctx
	<-ctx.Done()
	cancel()
	stopped := time.NewTimer(time.Hour) // @timed.stopped
	stopped.Stop()
	tk := time.NewTicker(time.Millisecond) // @timed.ticker
	<-tk.C
	tk.Stop()
}

// Resets: a channel timer, a function timer and a ticker, each made for an hour and reset
// to a few milliseconds.
func TestTimerResets(t *testing.T) {
	tm := time.NewTimer(time.Hour) // @reset.timer
	tm.Reset(3 * time.Millisecond) // @reset.timer.reset
	<-tm.C
	done := make(chan struct{})
	f := time.AfterFunc(time.Hour, func() { close(done) }) // @reset.func
	f.Reset(4 * time.Millisecond)                          // @reset.func.reset
	<-done
	tk := time.NewTicker(time.Hour) // @reset.ticker
	tk.Reset(2 * time.Millisecond)  // @reset.ticker.reset
	<-tk.C
	tk.Stop()
}
