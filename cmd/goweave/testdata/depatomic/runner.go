// Package depatomic is a runner whose Stop waits for its loop only when a flag (an atomic of
// a dependency) says it runs, as gocron's Scheduler does with a go.uber.org/atomic Bool.
package depatomic

import (
	"context"
	"sync"

	"goweave.test/depatomicwrap"
)

// Runner runs one loop until stopped.
type Runner struct {
	wg      sync.WaitGroup
	running depatomicwrap.Bool
	ctx     context.Context
	cancel  context.CancelFunc
	// addInLoop: the loop adds itself to wg after it starts (the bug: its Add races
	// Stop's Wait, which the flag, set before the go statement, does not order).
	addInLoop bool
}

// New returns a stopped Runner; addInLoop chooses the buggy Start.
func New(addInLoop bool) *Runner {
	ctx, cancel := context.WithCancel(context.Background())
	return &Runner{ctx: ctx, cancel: cancel, addInLoop: addInLoop}
}

// Start starts the loop.
func (r *Runner) Start() {
	if !r.addInLoop {
		r.wg.Add(1) // the guarded Add
	}
	r.running.Store(true)
	go r.loop()
}

func (r *Runner) loop() {
	if r.addInLoop {
		r.wg.Add(1) // the racing Add
	}
	<-r.ctx.Done()
	r.wg.Done()
}

// Stop stops a running loop and waits for it; false when it is not running yet.
func (r *Runner) Stop() bool {
	if !r.running.Load() {
		return false
	}
	r.cancel()
	r.wg.Wait() // the Wait
	return true
}
