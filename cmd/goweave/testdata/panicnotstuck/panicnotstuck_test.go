// Package panicnotstuck reproduces survey 7's class 14 (rabbitmq/amqp091-go,
// TestConfirmMultipleOrdersDeliveryTags): a connection's heartbeater waits in a select on
// the connection's done channel, which the test's deferred Close would close, and the
// test's watchdog, armed with time.AfterFunc, panics with "send deadlock" on the timer's
// goroutine while the test goroutine is still busy. The process dies of that panic with
// the heartbeater blocked: a crash, not a stuck run. goweave before the fix reported a
// "deadlock" (actual) at the heartbeater's select, "the run is stuck", in every run.
package panicnotstuck

import (
	"testing"
	"time"
)

type conn struct {
	done  chan struct{}
	beats chan struct{}
}

func dial() *conn {
	c := &conn{done: make(chan struct{}), beats: make(chan struct{}, 1)}
	go c.heartbeater()
	return c
}

func (c *conn) heartbeater() {
	for {
		select {
		case <-c.done:
			return
		case <-c.beats:
		}
	}
}

func (c *conn) Close() { close(c.done) }

func TestWatchdogPanics(t *testing.T) {
	c := dial()
	defer c.Close()
	c.beats <- struct{}{}
	time.AfterFunc(time.Millisecond, func() { panic("send deadlock") })
	time.Sleep(time.Minute) // a reply that never comes; the watchdog's panic ends the process
}
