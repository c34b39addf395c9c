package leakgc

import (
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// settle waits until the goroutines started by a test have reached the
// operation they block on (or a sleep), so that the process ends with them
// parked there: no goroutine but the caller is running or runnable. A
// condition, not a time: a few milliseconds were not enough on a loaded
// machine. The bound only keeps a broken test from hanging.
func settle() {
	buf := make([]byte, 1<<20)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		stacks := string(buf[:runtime.Stack(buf, true)])
		if strings.Count(stacks, " [running")+strings.Count(stacks, " [runnable")+strings.Count(stacks, " [syscall") <= 1 {
			return
		}
		runtime.Gosched()
	}
}

// The sender's channel is referenced only by the sender: nobody can receive.
func TestLeakChanSend(t *testing.T) {
	results := make(chan int)
	go func() {
		results <- 42
	}()
	settle()
}

// A goroutine returns holding the mutex; the next Lock waits forever.
func TestLeakMutexHeldByExited(t *testing.T) {
	// Not a lone sync.Mutex: 8 bytes without pointers go to the allocator's 16-byte tiny
	// blocks, and a live neighbour in the same block would keep it reachable, hiding the
	// leak from the GC now and then (as from stock Go's goroutineleak profile). 16 bytes
	// are an object of their own.
	var mu struct {
		sync.Mutex
		_ [8]byte
	}
	done := make(chan struct{})
	go func() {
		mu.Lock()
		close(done)
	}()
	<-done
	go func() {
		mu.Lock()
		mu.Unlock()
	}()
	settle()
}

// Two Adds, one Done: the waiter waits forever.
func TestLeakWaitGroup(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { wg.Done() }()
	go func() { wg.Wait() }()
	settle()
}

// A receive from a nil channel never completes.
func TestLeakNilChan(t *testing.T) {
	var never chan int
	go func() {
		<-never
	}()
	settle()
}

// Every channel of the select is referenced only by the selecting goroutine.
func TestLeakSelectUnreachable(t *testing.T) {
	stop := make(chan struct{})
	work := make(chan int)
	go func() {
		select {
		case <-stop:
		case <-work:
		}
	}()
	settle()
}

// Two goroutines wait on each other's channel; nothing outside the pair can
// reach either channel, so both are leaked.
func TestLeakCycle(t *testing.T) {
	a, b := make(chan int), make(chan int)
	go func() {
		<-a
		b <- 1
	}()
	go func() {
		<-b
		a <- 1
	}()
	settle()
}

// A Wait whose Signal came before it (lost wakeup), on a Cond only the waiter
// references.
func TestLeakCondLostWakeup(t *testing.T) {
	c := sync.NewCond(&sync.Mutex{})
	c.Signal()
	go func() {
		c.L.Lock()
		c.Wait()
		c.L.Unlock()
	}()
	settle()
}

// registry is the usual shape of a mutex in real code: a field of a struct
// that also holds pointers.
type registry struct {
	mu    sync.Mutex
	names map[string]int
}

// As TestLeakMutexHeldByExited, with the mutex in a struct that holds
// pointers (a bare sync.Mutex is 8 pointer-free bytes: the tiny allocator may
// put it in one 16-byte block with another live object, and the GC marks
// whole blocks).
func TestLeakMutexInStruct(t *testing.T) {
	r := &registry{names: map[string]int{}}
	done := make(chan struct{})
	go func() {
		r.mu.Lock()
		r.names["a"] = 1
		close(done)
	}()
	<-done
	go func() {
		r.mu.Lock()
		r.mu.Unlock()
	}()
	settle()
}

// The only goroutine that ever sent on the channel is still alive (asleep for
// good) but has dropped it: nothing can reach the channel, the receiver
// leaked although its partner lives.
func TestLeakAbandonedByLiveSender(t *testing.T) {
	go func() {
		jobs := make(chan int)
		go func() {
			for j := range jobs {
				_ = j
			}
		}()
		jobs <- 1
		jobs = nil
		time.Sleep(time.Hour)
	}()
	settle()
}
