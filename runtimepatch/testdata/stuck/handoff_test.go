package stuck

import (
	"sync"
	"testing"
	"time"
)

// Mutexes handed through a channel or a Cond to a goroutine already running,
// which unlocks them later. In each, the first goroutine locks mtx, hands it
// on, then waits for buf, which the second holds while it waits for mtx: the
// first is not the one who unlocks mtx, so the two do not wait for each
// other, and the run ends when the worker is done.

// contend runs the first and the second goroutine around a hand-off of mtx
// (handOff, called with mtx locked) and waits for both.
func contend(mtx *sync.Mutex, handOff func()) {
	var buf sync.Mutex
	locked, bufHeld := make(chan bool), make(chan bool)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // first
		defer wg.Done()
		mtx.Lock()
		handOff()
		locked <- true // to the second, still holding mtx as far as anyone can tell
		<-bufHeld
		buf.Lock()
		buf.Unlock()
	}()
	go func() { // second
		defer wg.Done()
		<-locked
		buf.Lock()
		bufHeld <- true
		mtx.Lock()
		mtx.Unlock()
		buf.Unlock()
	}()
	wg.Wait()
}

// TestNotStuckChanHandoff: mtx goes through an unbuffered channel to a worker
// waiting for jobs, which sleeps before it unlocks it.
func TestNotStuckChanHandoff(t *testing.T) {
	var mtx sync.Mutex
	jobs, done := make(chan *sync.Mutex), make(chan bool)
	go func() { // the worker
		for m := range jobs {
			time.Sleep(notStuckFor)
			m.Unlock()
		}
		close(done)
	}()
	contend(&mtx, func() { jobs <- &mtx })
	close(jobs)
	<-done
}

// TestNotStuckQueuedHandoff: mtx waits in a channel's buffer, in a job that
// unlocks it, while the worker is busy (sleeping) with an earlier job; nobody
// has received it yet when the first and the second wait for each other.
func TestNotStuckQueuedHandoff(t *testing.T) {
	var mtx sync.Mutex
	jobs, done := make(chan func(), 4), make(chan bool)
	jobs <- func() { time.Sleep(notStuckFor) } // the earlier job
	go func() {                                // the worker
		for job := range jobs {
			job()
		}
		close(done)
	}()
	contend(&mtx, func() { jobs <- mtx.Unlock })
	close(jobs)
	<-done
}

// TestNotStuckCondHandoff: mtx goes to a worker waiting on a Cond, through a
// field the Cond guards and a Signal.
func TestNotStuckCondHandoff(t *testing.T) {
	var mtx, qmu sync.Mutex
	cond := sync.NewCond(&qmu)
	var job *sync.Mutex
	ready, done := make(chan bool), make(chan bool)
	go func() { // the worker
		qmu.Lock()
		close(ready)
		for job == nil {
			cond.Wait()
		}
		m := job
		qmu.Unlock()
		time.Sleep(notStuckFor)
		m.Unlock()
		close(done)
	}()
	<-ready
	contend(&mtx, func() {
		qmu.Lock()
		job = &mtx
		cond.Signal()
		qmu.Unlock()
	})
	<-done
}

// TestStuckLockCycleQueued: two goroutines take two mutexes in opposite
// orders, each telling the other through a buffered channel that it holds its
// first (messages sent with a lock held, received by the other side of the
// cycle), beside a goroutine that keeps working: a true cycle.
func TestStuckLockCycleQueued(t *testing.T) {
	var a, b sync.Mutex
	go busy()
	aHeld, bHeld := make(chan bool, 1), make(chan bool, 1)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		a.Lock()
		aHeld <- true
		<-bHeld
		b.Lock() // @queued.ab
		b.Unlock()
		a.Unlock()
	}()
	go func() {
		defer wg.Done()
		b.Lock()
		bHeld <- true
		<-aHeld
		a.Lock() // @queued.ba
		a.Unlock()
		b.Unlock()
	}()
	wg.Wait()
}
