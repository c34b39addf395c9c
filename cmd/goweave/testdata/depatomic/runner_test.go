package depatomic

import (
	"testing"
	"time"
)

// stopWhenRunning starts r with a stopper started first, which polls Stop until the flag
// says the loop runs: only the flag orders the stopper's Wait after Start.
func stopWhenRunning(r *Runner) {
	stopped := make(chan struct{})
	go func() {
		for !r.Stop() {
			time.Sleep(time.Millisecond)
		}
		close(stopped)
	}()
	r.Start()
	<-stopped
}

func TestGuarded(t *testing.T) { stopWhenRunning(New(false)) }

func TestAddInLoop(t *testing.T) { stopWhenRunning(New(true)) }
