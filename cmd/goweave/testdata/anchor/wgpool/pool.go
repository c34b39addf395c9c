// Package wgpool runs functions in goroutines. Its Go calls wg.Add inside the goroutine it
// starts, so nothing orders that Add before a Wait: the race is in the package, at the Add
// and the Wait, whichever test reaches it.
package wgpool

import "sync"

type Pool struct {
	wg sync.WaitGroup
}

// Go runs f in a new goroutine.
func (p *Pool) Go(f func()) {
	go func() {
		p.wg.Add(1) // the racing Add
		defer p.wg.Done()
		f()
	}()
}

// Wait waits for the functions started so far.
func (p *Pool) Wait() {
	p.wg.Wait() // the racing Wait
}
