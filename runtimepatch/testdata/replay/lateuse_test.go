package replay

import "testing"

// TestLateUse: a worker logs through t, and the test does not wait for it. A
// schedule that holds the Logf past the test's end makes it panic ("Log in
// goroutine after TestLateUse has completed").
func TestLateUse(t *testing.T) { // @late.end
	started := make(chan struct{})
	go func() {
		close(started) // @late.close
		t.Logf("late") // @late.use
	}()
	<-started // @late.recv
}
