package replay

import (
	"testing"
	"testing/synctest"
	"time"
)

// TestSynctestPrefer: a select inside a synctest bubble with one ready case
// and one that is never served. A schedule that prefers the never-served
// case waits its window and falls back; the bubble must neither declare a
// deadlock nor see goweave's timer from outside.
func TestSynctestPrefer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		never := make(chan int)
		ready := make(chan int, 1)
		ready <- 1
		select { // @synctest.prefer
		case <-never:
			t.Fatal("received from a channel nobody sends on")
		case <-ready:
		}
	})
}

// TestSynctestHeld: a send held by a schedule's delay inside a bubble whose
// only other goroutine waits for it and which has a timer pending an hour
// ahead. While the send is held the bubble must not count its goroutine as
// blocked: its fake clock stays where it was.
func TestSynctestHeld(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		time.AfterFunc(time.Hour, func() {})
		ch := make(chan int)
		go func() {
			ch <- 1 // @synctest.held
		}()
		<-ch // @synctest.recv
		if d := time.Since(start); d != 0 {
			t.Fatalf("the bubble's clock moved %v while the send was held", d)
		}
	})
}
