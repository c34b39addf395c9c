// Package refuted holds a test of which the analysis predicts a bug that no schedule makes
// happen: its confirmation refutes it.
package refuted

import (
	"sync"
	"testing"
)

// TestNonBlockingSendUnderLock offers a value without waiting, under a lock the receiver
// takes first: the select's default means the sender never blocks holding it.
func TestNonBlockingSendUnderLock(t *testing.T) {
	var mu sync.Mutex
	ch := make(chan int)
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		mu.Lock()
		mu.Unlock()
		select {
		case <-ch:
		case <-quit:
		}
	}()
	mu.Lock()
	select {
	case ch <- 1:
	default:
	}
	mu.Unlock()
	close(quit)
	<-done
}
