// Package buggy is the language server's end-to-end test program: TestPublish closes
// its results channel after a sleep instead of waiting for the sender, so the send and
// the close are unordered (a predicted send-on-closed) although every plain run passes.
package buggy

import (
	"testing"
	"time"
)

func TestPublish(t *testing.T) {
	results := make(chan int, 1)
	go func() {
		results <- 42
	}()
	time.Sleep(5 * time.Millisecond)
	close(results)
	for range results {
	}
}

func TestQuiet(t *testing.T) {
	done := make(chan struct{})
	go func() { close(done) }()
	<-done
}
