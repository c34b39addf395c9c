// Package anchordep is a client library, a dependency of the module under test (replaced
// by this directory): Dial starts a resolver and a balancer goroutine; the resolver
// signals by closing the channel the balancer reads a value from. Both operations are the
// library's, both attributed to the user's Dial call: nothing the user can act on.
package anchordep

import "sync/atomic"

type Conn struct {
	ready chan int
	done  chan struct{}
	addr  atomic.Int64
}

func Dial() *Conn {
	c := &Conn{ready: make(chan int), done: make(chan struct{})}
	go c.resolve()
	go c.balance()
	return c
}

func (c *Conn) resolve() { close(c.ready) }

func (c *Conn) balance() {
	addr := <-c.ready
	c.addr.Store(int64(addr))
	close(c.done)
}

// Wait waits for the balancer.
func (c *Conn) Wait() { <-c.done }
