//go:build goweave

package objid

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"unsafe"
)

// goweaveIDStats is the goweave runtime's count of the sync objects that
// have an id in its address table, and of the entries the GC dropped.
//
//go:linkname goweaveIDStats runtime.goweaveIDStats
func goweaveIDStats() (live, swept uint64)

// big is in a size class whose spans hold 4 objects, so a freed one is
// soon handed out again.
type big struct {
	mu sync.Mutex
	_  [10240 - 8]byte
}

var (
	keep  []*big
	fresh []*big
	sink  *sync.Mutex
)

// TestReuse locks a mutex, frees it, and allocates until an object lands at
// its address, then locks that one: the two must have distinct ids.
func TestReuse(t *testing.T) {
	for i := 0; i < 8; i++ {
		keep = append(keep, new(big))
	}
	a := keep[5]
	a.mu.Lock() // @reuse.first
	a.mu.Unlock()
	addr := uintptr(unsafe.Pointer(a))
	keep[5], a = nil, nil
	runtime.GC()
	runtime.GC()
	for i := 0; i < 1024; i++ {
		b := new(big)
		fresh = append(fresh, b)
		if uintptr(unsafe.Pointer(b)) == addr {
			b.mu.Lock() // @reuse.second
			b.mu.Unlock()
			fmt.Println("REUSED after", i+1, "allocations")
			return
		}
	}
	t.Fatal("no object was allocated at the freed address")
}

// TestStackMoves locks a mutex on the goroutine's stack, grows the stack
// (copying it elsewhere) and tries it again: one object, one id. Only
// TryLock keeps a Mutex on the stack: Lock and Unlock make it escape (their
// slow paths hand its address to the runtime's semaphores).
func TestStackMoves(t *testing.T) {
	var mu sync.Mutex
	mu.TryLock() // @stack.lock
	at := uintptr(unsafe.Pointer(&mu))
	grow(4000)
	if uintptr(unsafe.Pointer(&mu)) != at {
		fmt.Println("MOVED") // on the stack, which moved
	}
	if mu.TryLock() { // @stack.again
		t.Fatal("locked twice")
	}
}

//go:noinline
func grow(n int) int {
	var buf [128]byte
	buf[n%128] = byte(n)
	if n == 0 {
		return 0
	}
	return grow(n-1) + int(buf[n%128]&1)
}

// TestDeadDropped records 20000 mutexes that die at once: after a GC the
// table holds none of them.
func TestDeadDropped(t *testing.T) {
	for i := 0; i < 20000; i++ {
		m := new(sync.Mutex)
		sink = m
		m.Lock() // @dead.lock
		m.Unlock()
	}
	sink = nil
	before, _ := goweaveIDStats()
	runtime.GC()
	live, swept := goweaveIDStats()
	fmt.Println("IDS before", before, "live", live, "swept", swept)
	if before < 20000 || live > 100 || swept < 19900 {
		t.Fatalf("ids: %d before the GC, %d live and %d dropped after it; want >= 20000, <= 100, >= 19900", before, live, swept)
	}
}
