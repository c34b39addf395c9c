// A notifier offers an event without waiting, under the lock that guards its subscribers;
// the subscriber took that lock before it waits. The select's default case means the
// notifier never blocks holding the lock: no deadlock. Nothing to report.
package nbselect

import (
	"sync"
	"testing"
)

type notifier struct {
	mu     sync.Mutex
	count  int
	events chan int
}

func (n *notifier) notify() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.count++
	select {
	case n.events <- n.count:
	default:
	}
}

func (n *notifier) subscribe(stop <-chan struct{}, got chan<- int) {
	n.mu.Lock()
	c := n.count
	n.mu.Unlock()
	select {
	case v := <-n.events:
		got <- v + c
	case <-stop:
		got <- c
	}
}

func TestNotify(t *testing.T) {
	n := &notifier{events: make(chan int)}
	stop := make(chan struct{})
	got := make(chan int, 1)
	go n.subscribe(stop, got)
	n.notify()
	close(stop)
	if v := <-got; v < 0 {
		t.Fatal(v)
	}
}
