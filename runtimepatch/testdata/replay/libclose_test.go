package replay

import (
	"context"
	"sync"
	"testing"
)

// TestLibraryClose cancels a context, whose close of its Done channel the recorder writes as
// the library's (internal) at the cancel line, between two ordered operations of the test
// goroutine; the goroutine's Done makes that channel (internal too) at its wait's line.
func TestLibraryClose(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan bool)
	go func() {
		<-ctx.Done() // @libclose.wait
		done <- true // @libclose.send
	}()
	var mu sync.Mutex
	mu.Lock()   // @libclose.lock
	cancel()    // @libclose.cancel
	mu.Unlock() // @libclose.unlock
	<-done      // @libclose.recv
}
