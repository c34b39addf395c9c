package leakgc

import (
	"context"
	"testing"
	"time"
)

// worker is the usual service loop: it runs until its context is cancelled.
func worker(ctx context.Context, jobs <-chan int) {
	for {
		select {
		case <-ctx.Done():
			return
		case j := <-jobs:
			_ = j
		}
	}
}

var (
	globalJobs   chan int
	globalCtx    context.Context
	globalCancel context.CancelFunc
	globalEvents chan string
)

// The worker's context and jobs live in globals: any code may still cancel or
// send, so the blocked worker lingers; it is not leaked.
func TestLingerWorkerGlobal(t *testing.T) {
	globalCtx, globalCancel = context.WithCancel(context.Background())
	globalJobs = make(chan int)
	go worker(globalCtx, globalJobs)
	globalJobs <- 1
	settle()
}

// A live producer (sleeping between sends) holds the jobs channel and has
// used it: the worker lingers.
func TestLingerWorkerLiveProducer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	jobs := make(chan int)
	go worker(ctx, jobs)
	go func() {
		defer cancel()
		for i := 0; ; i++ {
			jobs <- i
			time.Sleep(time.Hour)
		}
	}()
	settle()
}

// A live goroutine holds the jobs channel but has not used it yet (it sends
// after a long sleep): still lingering, the channel is reachable.
func TestLingerWorkerIdleHolder(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	jobs := make(chan int)
	go worker(ctx, jobs)
	go func() {
		defer cancel()
		time.Sleep(time.Hour)
		jobs <- 1
	}()
	settle()
}

// A goroutine waits on a channel kept in a global.
func TestLingerGlobalChan(t *testing.T) {
	globalEvents = make(chan string)
	go func() {
		for e := range globalEvents {
			_ = e
		}
	}()
	globalEvents <- "start"
	settle()
}

// The context is cancelled in a defer when the test returns: the worker wakes
// and exits shortly after, it was never leaked.
func TestLingerCancelInDefer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	jobs := make(chan int)
	go worker(ctx, jobs)
	jobs <- 1
	settle()
}

// Every goroutine the test starts ends before it returns: nothing is blocked
// at exit (the recorder then skips the leak GC).
func TestLingerNone(t *testing.T) {
	done := make(chan struct{})
	go func() { close(done) }()
	<-done
}
