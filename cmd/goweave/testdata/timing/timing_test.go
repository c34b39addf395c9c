package timing

import (
	"testing"
	"time"
)

// Waits for the worker by the clock: fails when the worker is slower than 20 ms.
func TestSleepsForWorker(t *testing.T) {
	var c Counter
	c.Start()
	time.Sleep(20 * time.Millisecond)
	if got := c.Value(); got != 1 {
		t.Fatalf("Value() = %d after the worker's time, want 1", got)
	}
}

// Waits for the announcement, which comes before the load: an order violation. The sleep
// before it plays no part.
func TestReadsAfterAnnouncement(t *testing.T) {
	time.Sleep(time.Millisecond)
	l := &Loader{Events: make(chan string)}
	l.Start()
	<-l.Events
	if got := l.Get("name"); got != "goweave" {
		t.Fatalf("Get(name) = %q after the announcement, want goweave", got)
	}
}
