package replay

import (
	"context"
	"errors"
	"testing"
)

// TestSelectCancelled has the shape of a pool's acquire: a constructor
// goroutine reports its error on errc or gives up on ctx.Done(), and the
// caller waits for either. ctx is cancelled before both selects, so in Go
// neither ever blocks (ctx.Done() is ready) and errc's send and receive can
// never meet: both take ctx.Done(), in every run. A schedule that prefers the
// errc cases may delay each goroutine before its select, never make them
// meet on errc.
func TestSelectCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	errc := make(chan error)
	gaveUp := make(chan struct{})
	go func() {
		select { // @cancel.construct
		case errc <- errors.New("construct failed"):
		case <-ctx.Done():
			close(gaveUp)
		}
	}()
	select { // @cancel.acquire
	case <-ctx.Done():
		<-gaveUp
	case err := <-errc:
		// No run of the Go runtime gets here; a pool that did would wait
		// for gaveUp forever.
		t.Log("took errc:", err)
	}
}

// TestSelectRendezvous: two selects meet on c (quit is never closed). A
// schedule that prefers both ends of c must not leave each waiting for the
// other to block first.
func TestSelectRendezvous(t *testing.T) {
	c := make(chan int)
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		select { // @meet.send
		case c <- 1:
		case <-quit:
		}
	}()
	select { // @meet.recv
	case v := <-c:
		t.Log("received", v)
	case <-quit:
	}
	<-done
}
