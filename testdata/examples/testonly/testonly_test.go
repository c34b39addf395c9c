package testonly

import "testing"

func TestFirst(t *testing.T) {
	fast := func() string { return "fast" }
	if got := First([]func() string{fast, fast}); got != "fast" {
		t.Fatalf("First = %q", got)
	}
}

// The test's own watcher waits for a stop the test never sends: the package's code plays no
// part in it.
func TestWatcher(t *testing.T) {
	stop := make(chan struct{})
	started := make(chan bool)
	go func() {
		started <- true
		<-stop // want "leak-chan"
	}()
	<-started
}
