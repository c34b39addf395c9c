package bench

import (
	"sync"
	"testing"
)

// The stuck check's hand-off tracking (zz_goweave_handoff.go) on its tagged
// paths: operations of a goroutine that holds a lock it took.

// BenchmarkLockedSend: one op is Lock, a buffered send and its receive with
// the lock held (tagged: the receive takes the tag), Unlock (4 recorded
// events).
func BenchmarkLockedSend(b *testing.B) {
	var mu sync.Mutex
	c := make(chan int, 1)
	for i := 0; i < b.N; i++ {
		mu.Lock()
		c <- i
		<-c
		mu.Unlock()
	}
}

// BenchmarkNestedLock: one op is Lock a, Lock b, Unlock b (tagged: a is
// held), Unlock a (4 recorded events); the next Lock of b takes the tag.
func BenchmarkNestedLock(b *testing.B) {
	var a, c sync.Mutex
	for i := 0; i < b.N; i++ {
		a.Lock()
		c.Lock()
		c.Unlock()
		a.Unlock()
	}
}
