// Package replay holds tests for goweave's replay and confirmation: a send that races a
// close, a test whose control flow depends on the environment, and a test that deadlocks
// in every run.
package replay

import (
	"os"
	"sync"
	"testing"
	"time"
)

// The send normally runs first; nothing orders it with the close.
func TestCloseRace(t *testing.T) {
	results, sent := make(chan int, 1), make(chan bool)
	go func() {
		results <- 42
		sent <- true
	}()
	time.Sleep(5 * time.Millisecond)
	close(results)
	for r := range results {
		t.Log(r)
	}
	<-sent // a send after the close panics: the test must not return and exit before it
}

// With REPLAY_FLOW=other the worker takes no lock: a schedule recorded without it names
// operations that never come.
func TestFlow(t *testing.T) {
	var mu sync.Mutex
	done := make(chan bool)
	go func() {
		if os.Getenv("REPLAY_FLOW") == "other" {
			done <- true
			return
		}
		mu.Lock()
		mu.Unlock()
		done <- true
	}()
	mu.Lock()
	mu.Unlock()
	<-done
}

// Deadlocks in every run: the worker waits for a lock the test goroutine holds while it
// waits for the worker.
func TestStuck(t *testing.T) {
	var mu sync.Mutex
	mu.Lock()
	ch := make(chan int)
	go func() {
		mu.Lock()
		ch <- 1
	}()
	<-ch
}
