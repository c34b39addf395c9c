// A loader publishes a snapshot through an atomic.Value: it reports each
// entry it loaded on the progress channel, fills the snapshot, then stores
// it; the reader spins until it loads the snapshot, reads it, then closes
// the progress channel. The Store after the sends and the Load before the
// close order them (a Store happens before the Load that observes it): no
// send may run after the close, and the snapshot's map is not raced on.
package atomicvalue

import (
	"runtime"
	"sync/atomic"
	"testing"
)

type snapshot struct {
	entries map[string]int
}

type loader struct {
	progress chan string
	current  atomic.Value // *snapshot
}

func (l *loader) load(keys []string) {
	s := &snapshot{entries: map[string]int{}}
	for i, k := range keys {
		s.entries[k] = i
		l.progress <- k
	}
	l.current.Store(s)
}

func TestSnapshot(t *testing.T) {
	l := &loader{progress: make(chan string, 4)}
	go l.load([]string{"a", "b", "c"})
	var s *snapshot
	for {
		if v := l.current.Load(); v != nil {
			s = v.(*snapshot)
			break
		}
		runtime.Gosched()
	}
	if len(s.entries) != 3 || s.entries["c"] != 2 {
		t.Fatalf("entries = %v", s.entries)
	}
	close(l.progress)
	n := 0
	for range l.progress {
		n++
	}
	if n != 3 {
		t.Fatalf("%d progress reports, want 3", n)
	}
}
