// Package unjoined has a crew of workers that Stop tells to quit: Crew.Stop returns without
// waiting for them (the bug: a leftover-goroutine check passes only when they are quick),
// JoinedCrew.Stop waits on a WaitGroup.
package unjoined

import "sync"

// Crew runs jobs on n workers.
type Crew struct {
	jobs chan func()
	quit chan struct{}
}

// NewCrew starts n workers.
func NewCrew(n int) *Crew {
	c := &Crew{jobs: make(chan func()), quit: make(chan struct{})}
	for range n {
		go c.work()
	}
	return c
}

func (c *Crew) work() {
	for {
		select {
		case job := <-c.jobs:
			job()
		case <-c.quit:
			return
		}
	}
}

// Do runs job on a worker.
func (c *Crew) Do(job func()) { c.jobs <- job }

// Stop tells the workers to quit and returns at once.
func (c *Crew) Stop() { close(c.quit) }

// JoinedCrew is Crew whose Stop waits for its workers.
type JoinedCrew struct {
	jobs chan func()
	quit chan struct{}
	wg   sync.WaitGroup
}

// NewJoinedCrew starts n workers.
func NewJoinedCrew(n int) *JoinedCrew {
	c := &JoinedCrew{jobs: make(chan func()), quit: make(chan struct{})}
	c.wg.Add(n)
	for range n {
		go c.work()
	}
	return c
}

func (c *JoinedCrew) work() {
	defer c.wg.Done()
	for {
		select {
		case job := <-c.jobs:
			job()
		case <-c.quit:
			return
		}
	}
}

// Do runs job on a worker.
func (c *JoinedCrew) Do(job func()) { c.jobs <- job }

// Stop tells the workers to quit and waits until they have.
func (c *JoinedCrew) Stop() {
	close(c.quit)
	c.wg.Wait()
}
