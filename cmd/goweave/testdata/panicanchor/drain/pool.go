// Package drain counts one WaitGroup unit per task, and its stop drains the queue with a
// Done per value, stop signals included (cmd/goweave's TestFuzzCommandNamesUncountedSend).
package drain

import "sync"

type Pool struct {
	tasks   chan func()
	done    chan struct{}
	pending sync.WaitGroup // one unit per submitted task
	workers sync.WaitGroup
}

func New() *Pool {
	p := &Pool{tasks: make(chan func(), 16), done: make(chan struct{})}
	p.workers.Add(1)
	go p.worker()
	return p
}

func (p *Pool) Submit(f func()) {
	p.pending.Add(1)
	p.tasks <- f
}

// StopIdle asks a worker to exit with a nil task.
func (p *Pool) StopIdle() {
	p.tasks <- nil // the uncounted send
}

func (p *Pool) worker() {
	defer p.workers.Done()
	for {
		select {
		case <-p.done:
			for range p.tasks {
				p.pending.Done() // the drain's Done: counts nil tasks too
			}
			return
		case f := <-p.tasks:
			if f == nil {
				return
			}
			f()
			p.pending.Done()
		}
	}
}

// Stop ends the workers, dropping the queued tasks.
func (p *Pool) Stop() {
	close(p.done)
	close(p.tasks)
	p.workers.Wait()
}
