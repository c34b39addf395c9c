// Package races has races the race detector reports in every run: one on a variable, and
// one between a send and the close of its channel.
package races

import "testing"

var hits int

func TestCounterRace(t *testing.T) {
	done := make(chan bool)
	go func() {
		hits++ // the goroutine's write
		done <- true
	}()
	_ = hits // the test's read
	<-done
}

func TestSendCloseRace(t *testing.T) {
	c := make(chan int, 1)
	done := make(chan bool)
	go func() {
		defer recoverAndSignal(done)
		c <- 1 // the send
	}()
	close(c) // the close
	<-done
}
