// Package handofflock reproduces survey 7's false findings in prometheus/client_golang's
// summary (TestSummaryConcurrency): Observe holds bufMtx, and when the buffer is full its
// asyncFlush locks mtx and hands it to a goroutine that flushes and then unlocks it (legal:
// a sync.Mutex is not owned by a goroutine). The next Observe by the same goroutine locks
// bufMtx while the flusher, not it, holds mtx, and may lock mtx again (waiting for the
// flusher). No schedule deadlocks: the flusher takes no lock, and go test -race passes.
// goweave fuzz -time 10s (f4b0477): 22 runs, 9 ended "deadlock" by the patched runtime's
// stuck check (a goroutine blocked locking a mutex it locked: "only a holder unlocks its
// mutex"), and a cyclic-deadlock bufMtx -> mtx -> bufMtx, "confirmed", exit status 1.
package handofflock

import (
	"sync"
	"testing"
)

type summary struct {
	bufMtx sync.Mutex // guards hot
	mtx    sync.Mutex // guards cold and total; handed to the flusher
	hot    []float64
	cold   []float64
	total  float64
	wg     sync.WaitGroup
}

func (s *summary) Observe(v float64) {
	s.bufMtx.Lock()
	defer s.bufMtx.Unlock()
	s.hot = append(s.hot, v)
	if len(s.hot) == 4 {
		s.asyncFlush()
	}
}

// asyncFlush needs bufMtx locked; the flusher unlocks mtx.
func (s *summary) asyncFlush() {
	s.mtx.Lock()
	s.hot, s.cold = s.cold[:0], s.hot
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for _, v := range s.cold {
			s.total += v
		}
		spin() // a flush that takes a while, as a quantile stream's compaction does
		s.mtx.Unlock()
	}()
}

var sink int

func spin() {
	for i := 0; i < 2_000_000; i++ {
		sink += i & 3
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

func TestObserveFlushHandOff(t *testing.T) {
	s := &summary{}
	var wg sync.WaitGroup
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 16; i++ {
				s.Observe(1)
			}
		}()
	}
	wg.Wait()
	s.wg.Wait()
	if got := s.Total(); got != 32 {
		t.Fatalf("total = %v, want 32", got)
	}
}
