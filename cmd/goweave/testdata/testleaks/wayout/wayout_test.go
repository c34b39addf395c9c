package wayout

import (
	"context"
	"runtime"
	"strings"
	"testing"
)

// TestRouterNeverClosed runs a router and never closes it: both of its goroutines wait
// for the Close the test never called (the test's own leak).
func TestRouterNeverClosed(t *testing.T) {
	r := NewRouter()
	go r.Run(context.Background())
	<-r.Running()
	waitBlocked(t, "select", 1)
}

// TestPoolClosed closes its pool; the pool's Close should have closed the worker (the
// package's leak).
func TestPoolClosed(t *testing.T) {
	p := NewPool()
	p.Close()
	waitBlocked(t, "chan receive", 1)
}

// TestWorker closes the worker it made.
func TestWorker(t *testing.T) {
	w := NewWorker()
	w.Close()
}

// waitBlocked waits until n goroutines of the package are blocked with the wait reason.
func waitBlocked(t *testing.T, reason string, n int) {
	buf := make([]byte, 1<<20)
	for {
		k := 0
		for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			if strings.Contains(g, "["+reason+"]") && strings.Contains(g, "wayout.") {
				k++
			}
		}
		if k >= n {
			return
		}
		runtime.Gosched()
	}
}

// TestConsumeNeverClosed hands the package its channel and never closes it.
func TestConsumeNeverClosed(t *testing.T) {
	in := make(chan int)
	Consume(in)
	in <- 1
	waitBlocked(t, "chan receive", 1)
}

// TestDrainNeverClosed hands the package its channel and never closes it: the forwarder
// waits for the test, and the drainer for the forwarder's close.
func TestDrainNeverClosed(t *testing.T) {
	in := make(chan int)
	Drain(in)
	in <- 1
	waitBlocked(t, "chan receive", 2)
}
