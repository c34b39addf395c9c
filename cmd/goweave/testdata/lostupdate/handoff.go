// Package lostupdate is goweave's test program of a lost update through atomics: a
// connection's hand-off state is queued with a CompareAndSwap and rolled back with a Store
// when the next step fails, while a worker clears the state.
package lostupdate

import (
	"errors"
	"sync/atomic"
)

type handoff struct{ pending bool }

type conn struct {
	state  atomic.Pointer[handoff]
	usable atomic.Bool
}

var errChanged = errors.New("state changed")

// queue marks c queued for a hand-off; when c cannot be made unusable it puts the state
// back with a plain Store: a clear that ran in between is lost (the bug).
func (c *conn) queue() error {
	cur := c.state.Load()
	if cur == nil || !cur.pending {
		return nil
	}
	next := &handoff{}
	if !c.state.CompareAndSwap(cur, next) {
		return errChanged
	}
	if !c.usable.CompareAndSwap(true, false) {
		c.state.Store(cur)
		return errChanged
	}
	return nil
}

// queueSafe is queue with the rollback made conditional: nothing is lost.
func (c *conn) queueSafe() error {
	cur := c.state.Load()
	if cur == nil || !cur.pending {
		return nil
	}
	next := &handoff{}
	if !c.state.CompareAndSwap(cur, next) {
		return errChanged
	}
	if !c.usable.CompareAndSwap(true, false) {
		c.state.CompareAndSwap(next, cur)
		return errChanged
	}
	return nil
}

// clear is the worker's end of a hand-off.
func (c *conn) clear() { c.state.Store(&handoff{}) }

// pending reports whether c still waits for a hand-off.
func (c *conn) pending() bool {
	s := c.state.Load()
	return s != nil && s.pending
}

// flags sets a shared flag from two goroutines after each looked at it: a blind write of
// the same value, not a lost update.
type flags struct{ closed atomic.Bool }

func (f *flags) close() {
	if !f.closed.Load() {
		f.closed.Store(true)
	}
}

// valueConn keeps its hand-off state in an atomic.Value, rolled back the same way.
type valueConn struct {
	state  atomic.Value // *handoff
	usable atomic.Bool
}

func (c *valueConn) queue() error {
	cur, _ := c.state.Load().(*handoff)
	if cur == nil || !cur.pending {
		return nil
	}
	if !c.state.CompareAndSwap(cur, &handoff{}) {
		return errChanged
	}
	if !c.usable.CompareAndSwap(true, false) {
		c.state.Store(cur)
		return errChanged
	}
	return nil
}

func (c *valueConn) clear() { c.state.Store(&handoff{}) }
