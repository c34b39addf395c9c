package replay

import (
	"sync"
	"sync/atomic"
	"testing"
)

var atomicOrderFlag atomic.Bool

// TestAtomicThenOrdered does an atomic store, which no schedule orders, before the
// operation an order names first.
func TestAtomicThenOrdered(t *testing.T) {
	atomicOrderFlag.Store(true) // @atomicorder.store
	var wg sync.WaitGroup
	wg.Add(1) // @atomicorder.add
	go func() {
		wg.Done() // @atomicorder.done
	}()
	wg.Wait() // @atomicorder.wait
}
