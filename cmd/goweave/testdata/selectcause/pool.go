// Package selectcause has tests that fail in some runs only: one because of a select's
// random choice among ready cases, one because of the order of two goroutines.
package selectcause

import "context"

// Pool hands out a fixed number of slots.
type Pool struct{ slots chan struct{} }

// NewPool returns a pool of n free slots.
func NewPool(n int) *Pool {
	p := &Pool{slots: make(chan struct{}, n)}
	for range n {
		p.slots <- struct{}{}
	}
	return p
}

// Get takes a slot; it must fail once ctx is done. The bug: with a free slot and a
// cancelled context both ready, the select takes either case.
func (p *Pool) Get(ctx context.Context) error {
	select {
	case <-p.slots:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
