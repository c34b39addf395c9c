// Package ordercause holds flaky failures whose cause is the order of two of the library's
// operations on one object, and one whose cause is not an order at all.
package ordercause

import "sync"

// Scheduler runs jobs limited to a number of runs. It counts a run when it hands the run
// to the executor and, at the limit, removes the job from another goroutine: a run queued
// behind the executor is then removed before it executes (the job never runs).
type Scheduler struct {
	mu       sync.Mutex
	jobs     map[int]*Job
	queue    chan int
	removals chan int
	done     chan struct{}
	wg       sync.WaitGroup
}

// Job is a function and how many runs it may have.
type Job struct {
	fn          func()
	limit, runs int
}

// NewScheduler starts the executor.
func NewScheduler() *Scheduler {
	s := &Scheduler{jobs: map[int]*Job{}, queue: make(chan int, 8), removals: make(chan int), done: make(chan struct{})}
	s.wg.Add(1)
	go s.execute()
	go s.remover()
	return s
}

// Add registers a job.
func (s *Scheduler) Add(id int, limit int, fn func()) {
	s.mu.Lock()
	s.jobs[id] = &Job{fn: fn, limit: limit}
	s.mu.Unlock()
}

// Schedule hands one run of job id to the executor.
func (s *Scheduler) Schedule(id int) {
	s.mu.Lock()
	j := s.jobs[id]
	j.runs++
	last := j.runs == j.limit
	s.mu.Unlock()
	s.queue <- id
	if last {
		go func() { // the bug: counted before it ran
			select {
			case s.removals <- id:
			case <-s.done:
			}
		}()
	}
}

// remover drops the jobs whose removal was sent.
func (s *Scheduler) remover() {
	for {
		select {
		case id := <-s.removals:
			s.mu.Lock()
			delete(s.jobs, id)
			s.mu.Unlock()
		case <-s.done:
			return
		}
	}
}

// execute runs the queued runs of jobs that still exist.
func (s *Scheduler) execute() {
	defer s.wg.Done()
	for id := range s.queue {
		s.mu.Lock()
		j, ok := s.jobs[id]
		s.mu.Unlock()
		if ok {
			j.fn()
		}
	}
}

// Stop ends the executor once the queued runs are done.
func (s *Scheduler) Stop() {
	close(s.queue)
	s.wg.Wait()
	close(s.done)
}
