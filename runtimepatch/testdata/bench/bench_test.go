// Package bench holds the operations whose recording cost runtimepatch's
// benchmarks measure, run with and without recording.
package bench

import (
	"sync"
	"sync/atomic"
	"testing"
)

// BenchmarkPingPong: one op is a round trip over two unbuffered channels
// (4 recorded events).
func BenchmarkPingPong(b *testing.B) {
	ping, pong := make(chan int), make(chan int)
	go func() {
		for v := range ping {
			pong <- v
		}
	}()
	for i := 0; i < b.N; i++ {
		ping <- i
		<-pong
	}
	close(ping)
}

// BenchmarkLockUnlock: one op is Lock+Unlock (2 recorded events).
func BenchmarkLockUnlock(b *testing.B) {
	var mu sync.Mutex
	for i := 0; i < b.N; i++ {
		mu.Lock()
		mu.Unlock()
	}
}

// BenchmarkSelect2: one op is a buffered send and a 2-case select that
// receives it (2 recorded events, 4 records).
func BenchmarkSelect2(b *testing.B) {
	a, c := make(chan int, 1), make(chan int)
	for i := 0; i < b.N; i++ {
		a <- i
		select {
		case <-a:
		case <-c:
		}
	}
}

// BenchmarkTypedAtomicAdd: one op is an atomic.Int64.Add (1 recorded event).
func BenchmarkTypedAtomicAdd(b *testing.B) {
	var n atomic.Int64
	for i := 0; i < b.N; i++ {
		n.Add(1)
	}
}

// BenchmarkMapLoad: one op is a sync.Map Load of a present key (1 recorded
// event).
func BenchmarkMapLoad(b *testing.B) {
	var m sync.Map
	m.Store("k", 1)
	for i := 0; i < b.N; i++ {
		m.Load("k")
	}
}
