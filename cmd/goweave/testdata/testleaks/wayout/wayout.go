// Package wayout has a router whose goroutines run until Close, and a pool that owns a
// worker it must close itself.
package wayout

import "context"

// Router runs until Close.
type Router struct {
	closing chan struct{}
	running chan struct{}
}

// NewRouter returns a router; Run starts it, Close stops it.
func NewRouter() *Router {
	return &Router{closing: make(chan struct{}), running: make(chan struct{})}
}

// Run runs the router until Close.
func (r *Router) Run(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ready := make(chan struct{})
	go r.handleClose(ctx, ready)
	<-ready
	close(r.running)
	<-r.closing
}

// Running is closed once the router runs.
func (r *Router) Running() <-chan struct{} { return r.running }

func (r *Router) handleClose(ctx context.Context, ready chan struct{}) {
	done := ctx.Done()
	close(ready)
	select {
	case <-r.closing:
	case <-done:
	}
}

// Close stops the router.
func (r *Router) Close() { close(r.closing) }

// Worker runs until Close.
type Worker struct{ stop chan struct{} }

// NewWorker starts a worker.
func NewWorker() *Worker {
	w := &Worker{stop: make(chan struct{})}
	go w.loop()
	return w
}

func (w *Worker) loop() { <-w.stop }

// Close stops the worker.
func (w *Worker) Close() { close(w.stop) }

// Pool owns a worker.
type Pool struct {
	w    *Worker
	done chan struct{}
}

// NewPool starts a pool and its worker.
func NewPool() *Pool { return &Pool{w: NewWorker(), done: make(chan struct{})} }

// Close stops the pool; it forgets to close its worker.
func (p *Pool) Close() { close(p.done) }

// Consume receives the values of in until it is closed.
func Consume(in <-chan int) {
	go func() {
		for range in {
		}
	}()
}

// Forwarder copies a channel.
type Forwarder struct{}

// Forward returns a channel with the values of in, closed after in is.
func (f *Forwarder) Forward(in <-chan int) <-chan int {
	out := make(chan int)
	go func() {
		for v := range in {
			out <- v
		}
		close(out)
	}()
	return out
}

// Drain receives the values of in, through a Forwarder, until in is closed.
func Drain(in <-chan int) {
	out := (&Forwarder{}).Forward(in)
	go func() {
		for range out {
		}
	}()
}
