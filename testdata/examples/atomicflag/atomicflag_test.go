// A producer publishes its last result through an atomic flag: it sends on
// the results channel, then stores the flag; the owner spins until it loads
// the flag, reads the published value, then closes the channel. The Store
// after the send and the Load before the close order them (the Go memory
// model makes atomics synchronising): no send may run after the close, and
// the plain variable is not raced on.
package atomicflag

import (
	"runtime"
	"sync/atomic"
	"testing"
)

type producer struct {
	results chan int
	last    int
	ready   atomic.Bool
}

func (p *producer) run(n int) {
	for i := 1; i <= n; i++ {
		p.results <- i * i
	}
	p.last = n * n
	p.ready.Store(true)
}

func TestPublish(t *testing.T) {
	p := &producer{results: make(chan int, 8)}
	go p.run(3)
	for !p.ready.Load() {
		runtime.Gosched()
	}
	if p.last != 9 {
		t.Fatalf("last = %d", p.last)
	}
	close(p.results)
	sum := 0
	for v := range p.results {
		sum += v
	}
	if sum != 14 {
		t.Fatalf("sum = %d", sum)
	}
}
