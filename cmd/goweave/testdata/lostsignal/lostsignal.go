// Package lostsignal has a hub whose watcher waits for a handler's signal, sent without
// blocking (dropped when the watcher is not waiting yet), and a router whose watcher waits
// for its handlers' WaitGroup.
package lostsignal

import "sync"

// Hub signals its watcher when a handler is added.
type Hub struct {
	added  chan struct{}
	closed chan struct{}
}

// NewHub returns a hub; Run starts its watcher, Close stops it.
func NewHub() *Hub { return &Hub{added: make(chan struct{}), closed: make(chan struct{})} }

// Add adds a handler and tells the watcher, if it is waiting.
func (h *Hub) Add() {
	select {
	case h.added <- struct{}{}:
	default:
	}
}

// Run starts the watcher, which waits for a handler or for Close.
func (h *Hub) Run() {
	go func() {
		select {
		case <-h.added:
		case <-h.closed:
		}
	}()
}

// Close stops the hub.
func (h *Hub) Close() { close(h.closed) }

// Router runs handlers until Close; its watcher waits for all of them to stop.
type Router struct {
	stop       chan struct{}
	handlersWg *sync.WaitGroup
}

// NewRouter returns a router; Run starts it, Close stops it.
func NewRouter() *Router { return &Router{stop: make(chan struct{}), handlersWg: &sync.WaitGroup{}} }

// Run starts a handler and the watcher.
func (r *Router) Run() {
	r.handlersWg.Add(1)
	go func() {
		<-r.stop
		r.handlersWg.Done()
	}()
	go r.watch()
}

func (r *Router) watch() { r.handlersWg.Wait() }

// Close stops the router.
func (r *Router) Close() { close(r.stop) }
