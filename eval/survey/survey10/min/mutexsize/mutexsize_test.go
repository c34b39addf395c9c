package mutexsize

import (
	"sync"
	"testing"
	"unsafe"
)

// bucket is padded to one 64-byte cache line, the way concurrent maps lay out their buckets:
// the padding's length is a constant that a larger sync.Mutex makes negative.
type bucket struct {
	meta    uint64
	entries [5]unsafe.Pointer
	next    unsafe.Pointer
	mu      sync.Mutex
}

type padded struct {
	_ [64 - unsafe.Sizeof(bucket{})]byte
	bucket
}

func TestPadded(t *testing.T) {
	var p padded
	p.mu.Lock()
	p.mu.Unlock()
	if unsafe.Sizeof(p) != 64 {
		t.Fatalf("size %d", unsafe.Sizeof(p))
	}
}
