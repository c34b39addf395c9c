// A scanner publishes its tally through the function forms of sync/atomic:
// it reports each file on the found channel, sets the total, then stores 1
// into the done word with atomic.StoreInt32; the owner polls the word with
// atomic.LoadInt32, reads the total, then closes the channel. The store
// after the sends and the load before the close order them (goweave sees the
// function forms with the race detector, its default): no send may run after
// the close, and the total is not raced on.
package atomicfunc

import (
	"runtime"
	"sync/atomic"
	"testing"
)

type scanner struct {
	found chan string
	total int
	done  int32
}

func (s *scanner) scan(files []string) {
	for _, f := range files {
		s.found <- f
		s.total += len(f)
	}
	atomic.StoreInt32(&s.done, 1)
}

func TestTally(t *testing.T) {
	s := &scanner{found: make(chan string, 3)}
	go s.scan([]string{"a.go", "bb.go", "ccc.go"})
	for atomic.LoadInt32(&s.done) == 0 {
		runtime.Gosched()
	}
	if s.total != 15 {
		t.Fatalf("total = %d", s.total)
	}
	close(s.found)
	n := 0
	for range s.found {
		n++
	}
	if n != 3 {
		t.Fatalf("%d files reported, want 3", n)
	}
}
