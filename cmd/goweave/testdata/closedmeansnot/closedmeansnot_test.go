// Package closedmeansnot reproduces survey 9's false recv-on-closed in afex/hystrix-go
// (TestFallbackAfterRejected): a command runs either its run function or its fallback,
// never both. The test's fallback closes the channel the run function would have sent on,
// and the test then receives from that channel and asserts it got the zero value (false):
// the close is the test's proof that the run function did not run. Receiving the zero value
// from the closed channel is the outcome the test wants, not a lost message.
package closedmeansnot

import (
	"sync"
	"testing"
)

// do runs fallback instead of run when the breaker is open, each in a goroutine of its own,
// as a circuit breaker's asynchronous call does.
func do(open bool, run, fallback func()) {
	var once sync.Once
	go func() {
		if open {
			once.Do(fallback)
			return
		}
		once.Do(run)
	}()
}

func TestFallbackInsteadOfRun(t *testing.T) {
	runChan := make(chan bool, 1)
	fallbackChan := make(chan bool, 1)
	do(true, func() {
		runChan <- true // would panic after the fallback's close: run must not run
		close(fallbackChan)
	}, func() {
		fallbackChan <- true
		close(runChan)
	})
	if !<-fallbackChan {
		t.Fatal("the fallback did not run")
	}
	if <-runChan {
		t.Fatal("the run function ran")
	}
}
