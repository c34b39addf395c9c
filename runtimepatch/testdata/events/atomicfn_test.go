package events

import (
	"sync/atomic"
	"testing"
	"unsafe"
)

// TestAtomicFuncs: the function forms of sync/atomic called by the user.
// With the race detector every call is an atomic event at the user's line;
// without it the compiler turns most into instructions and only the pointer
// writes (StorePointer, SwapPointer, CompareAndSwapPointer) are calls. A
// typed value's method, which calls a function form, is one event.
func TestAtomicFuncs(t *testing.T) {
	var n int64
	var p unsafe.Pointer
	done := make(chan struct{})
	go func() {
		atomic.AddInt64(&n, 1)                      // @fn.add
		atomic.StorePointer(&p, unsafe.Pointer(&n)) // @fn.storeptr
		close(done)
	}()
	<-done
	if atomic.LoadInt64(&n) != 1 || atomic.LoadPointer(&p) == nil { // @fn.load
		t.Fatal("unexpected values")
	}
	var flag uint32
	atomic.CompareAndSwapUint32(&flag, 0, 1) // @fn.cas
	var x atomic.Int64
	x.Store(2) // @fn.typed
}

// TestAtomicFuncRace: an atomic add unordered with a plain read of the same
// variable is a data race; the race detector still sees the atomic access
// through goweave's body of AddInt64 and reports it at the user's line.
func TestAtomicFuncRace(t *testing.T) {
	var n int64
	done := make(chan struct{})
	go func() {
		atomic.AddInt64(&n, 1) // @fn.raceadd
		close(done)
	}()
	v := n
	<-done
	_ = v
}
