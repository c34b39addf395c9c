// Package closedrange reproduces survey 8's refuted mixed-deadlock hint in go-playground/pool
// (limited_pool.go closeWithError): Close holds the pool's lock, closes the work channel and
// drains it with a range; a producer takes the read lock before it sends on that channel.
// The range cannot block: the channel was closed by the holder, under the same lock, just
// before, so it only drains what is buffered and ends. The analysis predicts "if this side
// locks first, both wait forever"; the confirmation refutes it (a hint).
package closedrange

import (
	"sync"
	"testing"
)

type pool struct {
	m      sync.RWMutex
	closed bool
	work   chan int
	wg     sync.WaitGroup
}

func (p *pool) Queue(v int) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		p.m.RLock()
		defer p.m.RUnlock()
		if p.closed {
			return
		}
		p.work <- v
	}()
}

// Close drops the queued work, holding the lock as the pool does.
func (p *pool) Close() int {
	p.m.Lock()
	defer p.m.Unlock()
	dropped := 0
	if !p.closed {
		close(p.work)
		p.closed = true
	}
	for range p.work {
		dropped++
	}
	return dropped
}

func TestCloseDrainsQueued(t *testing.T) {
	p := &pool{work: make(chan int, 8)}
	for i := 0; i < 4; i++ {
		p.Queue(i)
	}
	n := p.Close()
	p.wg.Wait()
	if n > 4 {
		t.Fatalf("dropped %d of 4", n)
	}
}
