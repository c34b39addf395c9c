// Package sleepcheck is a check-then-act whose test fails in every plain run: the test
// sleeps so that Work is past its check before Close, and passes only when Work's
// goroutine is slower than the sleep.
package sleepcheck

import (
	"errors"
	"sync"
)

var ErrClosed = errors.New("closed")

type Guard struct {
	mu      sync.Mutex // guards closing
	closing bool
	work    sync.Mutex // held while working
}

func (g *Guard) isClosing() bool {
	g.mu.Lock()
	c := g.closing
	g.mu.Unlock()
	return c
}

// Work checks closing before it takes work, not after: a Close that comes while it waits
// for work is missed.
func (g *Guard) Work() error {
	if g.isClosing() {
		return ErrClosed
	}
	g.work.Lock()
	defer g.work.Unlock()
	return nil
}

func (g *Guard) Close() {
	g.mu.Lock()
	g.closing = true
	g.mu.Unlock()
}
