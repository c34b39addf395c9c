package drain

import "testing"

// The worker's select takes the closed done channel or the queued task at random: the drain
// counts the nil task in some runs and panics (negative WaitGroup counter).
func TestStopWithQueuedTasks(t *testing.T) {
	started := make(chan struct{})
	p := New()
	p.Submit(func() { close(started) })
	<-started
	p.Submit(func() {})
	p.StopIdle()
	p.Stop()
}
