// Package replay holds the programs runtimepatch's schedule-control tests run
// under GOWEAVE_SCHEDULE: two goroutines whose natural order a schedule
// reverses, a contended program to record and replay, a once-flow delay,
// select preferences, and programs that diverge or deadlock. "// @name"
// markers name the positions the tests write schedules for.
package replay

import (
	"os"
	"sync"
	"testing"
	"time"
)

// lateStart is how long the second goroutine of the order tests waits, so
// that in a free run the first one is almost always first.
const lateStart = 3 * time.Millisecond

// TestOrderSend: goroutine 1.1 sends "a" at once, 1.2 sends "b" a little
// later on a buffered channel; the receive order shows which went first.
func TestOrderSend(t *testing.T) {
	c := make(chan string, 2)
	var wg sync.WaitGroup
	wg.Add(2) // @send.add
	go func() {
		defer wg.Done()
		c <- "a" // @send.a
	}()
	go func() {
		defer wg.Done()
		time.Sleep(lateStart)
		c <- "b" // @send.b
	}()
	wg.Wait()
	t.Log(<-c, <-c)
}

// TestOrderLock: goroutine 1.1 locks at once, 1.2 a little later.
func TestOrderLock(t *testing.T) {
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	wg.Add(2) // @lock.add
	go func() {
		defer wg.Done()
		mu.Lock() // @lock.a
		order = append(order, "a")
		mu.Unlock() // @lock.a.unlock
	}()
	go func() {
		defer wg.Done()
		time.Sleep(lateStart)
		mu.Lock() // @lock.b
		order = append(order, "b")
		mu.Unlock() // @lock.b.unlock
	}()
	wg.Wait()
	t.Log(order)
}

// TestOrderOnce: goroutine 1.1 calls Do at once, 1.2 a little later: the
// first runs f.
func TestOrderOnce(t *testing.T) {
	var once sync.Once
	var wg sync.WaitGroup
	wg.Add(2) // @once.add
	go func() {
		defer wg.Done()
		once.Do(func() {}) // @once.a
	}()
	go func() {
		defer wg.Done()
		time.Sleep(lateStart)
		once.Do(func() {}) // @once.b
	}()
	wg.Wait()
}

// TestOrderRecv: goroutines 1.1 and 1.2 receive from one channel, 1.2 a
// little later; the test goroutine then sends two values.
func TestOrderRecv(t *testing.T) {
	c := make(chan int)
	var wg sync.WaitGroup
	wg.Add(2) // @recv.add
	go func() {
		defer wg.Done()
		<-c // @recv.a
	}()
	go func() {
		defer wg.Done()
		time.Sleep(lateStart)
		<-c // @recv.b
	}()
	time.Sleep(2 * lateStart)
	c <- 1 // @recv.send
	c <- 2 // @recv.send2
	wg.Wait()
}

// TestContended: four goroutines interleave on a mutex, a buffered and an
// unbuffered channel and a Once: each free run orders them differently.
func TestContended(t *testing.T) {
	var mu sync.Mutex
	var once sync.Once
	buf := make(chan int, 3)
	unbuf := make(chan int)
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1) // @cont.add
		go func() {
			defer wg.Done()
			for j := 0; j < 3; j++ {
				mu.Lock()   // @cont.lock
				mu.Unlock() // @cont.unlock
				buf <- i    // @cont.bufsend
				<-buf       // @cont.bufrecv
			}
			once.Do(func() {}) // @cont.once
			if i%2 == 0 {
				unbuf <- i // @cont.send
			} else {
				<-unbuf // @cont.recv
			}
		}()
	}
	wg.Wait()
}

// TestOnceFlow: goroutine 1.1 calls Do first in a free run; a delay of its
// Do until 1.2's Do is admitted makes 1.2 run f.
func TestOnceFlow(t *testing.T) {
	var once sync.Once
	var winner string
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		once.Do(func() { winner = "a" }) // @flow.a
	}()
	go func() {
		defer wg.Done()
		time.Sleep(lateStart)
		once.Do(func() { winner = "b" }) // @flow.b
	}()
	wg.Wait()
	t.Log("winner", winner)
}

// TestSelectPreference: case a is always ready, so a free run takes it; b's
// partner sends 5 ms later (never, when GOWEAVE_TEST_NO_PARTNER is set).
func TestSelectPreference(t *testing.T) {
	a, b := make(chan int, 1), make(chan int)
	a <- 1
	if os.Getenv("GOWEAVE_TEST_NO_PARTNER") == "" {
		go func() {
			time.Sleep(5 * time.Millisecond)
			b <- 2 // @pref.partner
		}()
	}
	select { // @pref.select
	case v := <-a:
		t.Log("took a", v)
	case v := <-b:
		t.Log("took b", v)
	}
}

// TestSelectNonBlocking: a one-case select with a default on a ready
// channel, then one on a channel that becomes ready 5 ms later.
func TestSelectNonBlocking(t *testing.T) {
	a, b := make(chan int, 1), make(chan int, 1)
	a <- 1
	go func() {
		time.Sleep(5 * time.Millisecond)
		b <- 2
	}()
	select {
	case <-a: // @nb.ready
		t.Log("ready: took the value")
	default:
		t.Log("ready: default")
	}
	select {
	case <-b: // @nb.late
		t.Log("late: took the value")
	default:
		t.Log("late: default")
	}
}

// TestBranch: goroutine 1.1 locks at one of two lines, chosen by
// GOWEAVE_TEST_BRANCH: a replay of one branch diverges on the other.
func TestBranch(t *testing.T) {
	var mu sync.Mutex
	done := make(chan bool)
	go func() {
		mu.Lock() // @branch.first
		mu.Unlock()
		if os.Getenv("GOWEAVE_TEST_BRANCH") == "b" {
			mu.Lock() // @branch.b
		} else {
			mu.Lock() // @branch.a
		}
		mu.Unlock()  // @branch.unlock
		done <- true // @branch.done
	}()
	<-done // @branch.wait
}

// TestDeadlock deadlocks by design: the test goroutine waits for a value
// nobody sends, after a lock its child takes and releases.
func TestDeadlock(t *testing.T) {
	var mu sync.Mutex
	c := make(chan int)
	go func() {
		mu.Lock() // @dead.lock
		mu.Unlock()
	}()
	time.Sleep(lateStart)
	mu.Lock() // @dead.lock2
	mu.Unlock()
	<-c // @dead.recv
}

// TestPingPong: pingPongRounds round trips over two unbuffered channels
// (4 recorded operations each), for the enforcement overhead benchmark.
func TestPingPong(t *testing.T) {
	ping, pong := make(chan int), make(chan int)
	go func() {
		for v := range ping { // @pp.range
			pong <- v // @pp.pong
		}
	}()
	for i := 0; i < pingPongRounds; i++ {
		ping <- i // @pp.ping
		<-pong    // @pp.recv
	}
	close(ping) // @pp.close
}

const pingPongRounds = 2000

// TestNothing performs no recorded operation (schedule parser conformance).
func TestNothing(t *testing.T) {}

// TestSlowHead: goroutine 1.1 computes for 500 ms before it locks (with
// GOWEAVE_TEST_BLOCKED set, it waits as long for a value nobody sends
// instead).
func TestSlowHead(t *testing.T) {
	var mu sync.Mutex
	done := make(chan bool)
	never := make(chan bool)
	go func() {
		if os.Getenv("GOWEAVE_TEST_BLOCKED") != "" {
			select {
			case <-never:
			case <-time.After(500 * time.Millisecond):
			}
		} else {
			for start := time.Now(); time.Since(start) < 500*time.Millisecond; {
			}
		}
		mu.Lock() // @slow.lock
		mu.Unlock()
		done <- true
	}()
	<-done
}
