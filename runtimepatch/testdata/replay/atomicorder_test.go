package replay

import (
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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

// TestAtomicPinned loads a flag on a goroutine while the test goroutine stores it: the
// schedule decides which comes first, and ATOMICPIN_WANT says what the Load must see.
// The test goroutine sleeps first, so the goroutine usually reads before the Store.
func TestAtomicPinned(t *testing.T) {
	var flag atomic.Bool
	seen := make(chan bool)
	go func() {
		seen <- flag.Load() // @atomicpin.load
	}()
	time.Sleep(5 * time.Millisecond) // the goroutine has read by now: a Load held after it must read again
	flag.Store(true)                 // @atomicpin.store
	got, want := <-seen, os.Getenv("ATOMICPIN_WANT")
	if want != "" && got != (want == "true") { // unset: a free run, either is fine
		t.Fatalf("the Load saw %v, want %s", got, want)
	}
}
