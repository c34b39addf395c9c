package semaphore

import (
	"testing"
	"time"
)

// A buffered channel of capacity 1 used as a semaphore guards closed and the close of out:
// the publisher sends only while out is open, Close marks it closed and closes it, each
// holding the semaphore. Receive k on sem happens before send k+1 completes (the Go memory
// model), so the publisher's send is ordered before the close whichever goroutine takes the
// semaphore first, and no schedule sends on the closed channel.
//
// goweave fuzz -runs 30, -race on and off, before the edge (5224952): one predicted
// send-on-closed (a hint: send line 40, close line 28) in 29 of 30 runs, which its
// confirmation refuted, exit 0: Close blocked on the full semaphore and the runtime stamps the
// woken sender before the receive that freed its slot. After (this branch): none. The race
// detector reports nothing either way: it knows the semaphore's order.
type pub struct {
	sem    chan struct{}
	closed bool
	out    chan int
}

func (p *pub) Close() {
	p.sem <- struct{}{}
	p.closed = true
	close(p.out)
	<-p.sem
}

func TestSemaphoreOrdersCloseAfterPublish(t *testing.T) {
	p := &pub{sem: make(chan struct{}, 1), out: make(chan int, 1)}
	holding := make(chan struct{})
	go func() {
		p.sem <- struct{}{} // holds the semaphore while Close starts
		close(holding)
		time.Sleep(5 * time.Millisecond) // work under the semaphore: Close blocks on it
		if !p.closed {
			p.out <- 1
		}
		<-p.sem
	}()
	<-holding
	p.Close()
	for range p.out {
	}
}
