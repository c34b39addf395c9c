package events

import (
	"sync/atomic"
	"testing"
)

// config is published through an atomic.Value: written, then stored; loaded,
// then read.
type config struct{ limit int }

// TestAtomicValue: each method of atomic.Value called by the user is one
// atomic event on the Value's address, at the user's line; a Load that finds
// nothing stored records nothing (it acquired nothing).
func TestAtomicValue(t *testing.T) {
	var v atomic.Value
	if v.Load() != nil { // @value.empty
		t.Fatal("empty Value loaded a value")
	}
	done := make(chan struct{})
	go func() {
		v.Store(&config{limit: 3}) // @value.store
		close(done)
	}()
	<-done
	c := v.Load().(*config)                     // @value.load
	old := v.Swap(&config{limit: 4})            // @value.swap
	swapped := v.CompareAndSwap(old, &config{}) // @value.cas
	var viaIface interface{ Load() any } = &v
	if viaIface.Load() == nil || c.limit != 3 || swapped { // @value.iface
		t.Fatal("unexpected values")
	}
}

// TestAtomicTyped: a typed value's methods are atomic events too, on the
// address of the value.
func TestAtomicTyped(t *testing.T) {
	var n atomic.Int64
	n.Add(2)           // @typed.add
	if n.Load() != 2 { // @typed.load
		t.Fatal("n != 2")
	}
}
