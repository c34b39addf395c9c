// Package bench holds the operations whose recording cost runtimepatch's
// benchmarks measure, run with and without recording.
package bench

import (
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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

// BenchmarkTimerFire: one op is a timer set to fire at once (a TimerSet,
// attributed to this frame through package time) and its value received
// through reflect, which the recorder does not see: the receive runs the due
// timer itself, so the op's other recorded event is the TimerFire.
func BenchmarkTimerFire(b *testing.B) {
	tm := time.NewTimer(time.Hour)
	c := reflect.ValueOf(tm.C)
	for i := 0; i < b.N; i++ {
		tm.Reset(0)
		c.Recv()
	}
}

// BenchmarkTimerReset: one op is a Reset of a timer that never fires (one
// TimerSet): with BenchmarkTimerFire, the cost of a fire alone.
func BenchmarkTimerReset(b *testing.B) {
	tm := time.NewTimer(time.Hour)
	for i := 0; i < b.N; i++ {
		tm.Reset(time.Hour)
	}
}
