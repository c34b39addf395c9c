package timing

import "sync"

// Service answers pings from a worker goroutine.
type Service struct {
	mu    sync.Mutex
	ready bool
	req   chan struct{}
	ack   chan struct{}
}

// NewService returns a Service; Start runs its worker.
func NewService() *Service { return &Service{req: make(chan struct{}), ack: make(chan struct{})} }

// Start runs the worker, which answers one ping once it is ready.
func (s *Service) Start() {
	go func() {
		s.mu.Lock()
		s.ready = true
		s.mu.Unlock()
		<-s.req
		s.ack <- struct{}{}
	}()
}

// Ping sends a request when the worker is ready, and waits for the answer. The bug: it
// waits for an answer even when it sent nothing (a worker not yet ready), forever.
func (s *Service) Ping() {
	s.mu.Lock()
	ready := s.ready
	s.mu.Unlock()
	if ready {
		s.req <- struct{}{}
	}
	<-s.ack
}
