// Package timelimit holds tests that never finish because goroutines are blocked for good
// while another goroutine keeps the process busy, so the runtime never reports a deadlock:
// goweave stops them at their time limit and must say which operations can never proceed.
package timelimit

import (
	"sync"
	"testing"
	"time"
)

// heartbeat keeps the process busy until the test ends, as a metrics flusher or a
// connection keep-alive would.
func heartbeat() func() {
	var mu sync.Mutex
	stopped := false
	go func() {
		for {
			time.Sleep(5 * time.Millisecond)
			mu.Lock()
			done := stopped
			mu.Unlock()
			if done {
				return
			}
		}
	}()
	return func() {
		mu.Lock()
		stopped = true
		mu.Unlock()
	}
}

type inbox struct{ jobs chan string }

// TestWaitsForAJobNobodySends receives from a channel that no goroutine will ever send on.
func TestWaitsForAJobNobodySends(t *testing.T) {
	stop := heartbeat()
	defer stop()
	in := &inbox{jobs: make(chan string)}
	job := <-in.jobs
	t.Log(job)
}

type account struct {
	mu      sync.Mutex
	balance int
}

// transfer locks the source account, then the destination: two transfers in opposite
// directions each hold the lock the other waits for. The barrier makes both take their
// first lock before either takes its second, in every schedule.
func transfer(from, to *account, amount int, barrier *sync.WaitGroup) {
	from.mu.Lock()
	defer from.mu.Unlock()
	barrier.Done()
	barrier.Wait()
	to.mu.Lock()
	defer to.mu.Unlock()
	from.balance -= amount
	to.balance += amount
}

// TestTransfersBothWays deadlocks two goroutines on two mutexes.
func TestTransfersBothWays(t *testing.T) {
	stop := heartbeat()
	defer stop()
	a, b := &account{balance: 100}, &account{balance: 100}
	var barrier, done sync.WaitGroup
	barrier.Add(2)
	done.Add(2)
	go func() {
		defer done.Done()
		transfer(a, b, 10, &barrier)
	}()
	go func() {
		defer done.Done()
		transfer(b, a, 20, &barrier)
	}()
	done.Wait()
	if a.balance+b.balance != 200 {
		t.Errorf("money appeared or vanished: %d", a.balance+b.balance)
	}
}
