package ordercause

import (
	"errors"
	"sync"
)

// ErrClosed is what Reconnect returns once Close began.
var ErrClosed = errors.New("closed")

// Conn reconnects unless it is closing. Reconnect checks closing before it takes
// reconnecting, not after: a Close while it waits for the lock is missed.
type Conn struct {
	closeM       sync.Mutex
	closing      bool
	reconnecting sync.Mutex
	dials        int
}

// Closing reports whether Close began.
func (c *Conn) Closing() bool {
	c.closeM.Lock()
	defer c.closeM.Unlock()
	return c.closing
}

// Close marks the connection closing.
func (c *Conn) Close() {
	c.closeM.Lock()
	c.closing = true
	c.closeM.Unlock()
}

// Reconnect dials again unless the connection is closing.
func (c *Conn) Reconnect() error {
	if c.Closing() { // the bug: checked before the lock
		return ErrClosed
	}
	c.reconnecting.Lock()
	defer c.reconnecting.Unlock()
	c.dials++
	return nil
}
