// Package chanhandofflock is handofflock's summary with its flusher already running: Observe
// holds bufMtx, and when the buffer is full it locks mtx and sends the full buffer to the
// flusher goroutine, which folds it in and then unlocks mtx (legal: a sync.Mutex is not owned
// by a goroutine). Total locks bufMtx, then mtx. No schedule deadlocks: the flusher takes no
// lock. The stuck check saw Observe's goroutine as mtx's holder, waiting for bufMtx, and
// Total's goroutine holding bufMtx, waiting for mtx: a false lock cycle while the flusher
// worked, until it followed the mutex through the channel.
package chanhandofflock

import (
	"sync"
	"testing"
	"time"
)

type summary struct {
	bufMtx  sync.Mutex // guards hot
	mtx     sync.Mutex // guards total; handed to the flusher with each full buffer
	hot     []float64
	total   float64
	flushes chan []float64
	done    chan struct{}
}

func newSummary() *summary {
	s := &summary{flushes: make(chan []float64), done: make(chan struct{})}
	go s.flusher()
	return s
}

// flusher folds in each buffer it gets, then unlocks mtx, which the sender locked.
func (s *summary) flusher() {
	for cold := range s.flushes {
		for _, v := range cold {
			s.total += v
		}
		time.Sleep(100 * time.Millisecond) // a flush that takes a while (a write to a backend)
		s.mtx.Unlock()
	}
	close(s.done)
}

func (s *summary) Observe(v float64) {
	s.bufMtx.Lock()
	defer s.bufMtx.Unlock()
	s.hot = append(s.hot, v)
	if len(s.hot) == 4 {
		s.mtx.Lock()
		s.flushes <- s.hot
		s.hot = nil
	}
}

func (s *summary) Total() float64 {
	s.bufMtx.Lock()
	s.mtx.Lock()
	t := s.total
	s.mtx.Unlock()
	s.bufMtx.Unlock()
	return t
}

func TestObserveFlushChanHandOff(t *testing.T) {
	s := newSummary()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // a reader
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				s.Total()
				time.Sleep(time.Millisecond)
			}
		}
	}()
	for i := 0; i < 16; i++ {
		s.Observe(1)
		time.Sleep(time.Millisecond) // between samples
	}
	close(stop)
	wg.Wait()
	if got := s.Total(); got != 16 {
		t.Fatalf("total = %v, want 16", got)
	}
	close(s.flushes)
	<-s.done
}
