// Package bench holds the operations whose recording cost runtimepatch's
// benchmarks measure, run with and without recording.
package bench

import (
	"reflect"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// cpuPerOp, deferred at a benchmark's start (defer cpuPerOp(b)()), reports
// the process's CPU time per op (every thread's user and system time): on a
// loaded shared machine a steadier figure than ns/op, which also counts the
// time spent waiting for a core. user-ns/op leaves out the system time, most
// of it the page faults of the trace's first writes to each page, which vary
// with the machine's load more than the recording code does.
func cpuPerOp(b *testing.B) func() {
	u0, s0 := cpuTime()
	return func() {
		u, s := cpuTime()
		b.ReportMetric(float64(u-u0+s-s0)/float64(b.N), "cpu-ns/op")
		b.ReportMetric(float64(u-u0)/float64(b.N), "user-ns/op")
	}
}

func cpuTime() (user, sys int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return ru.Utime.Nano(), ru.Stime.Nano()
}

// BenchmarkPingPong: one op is a round trip over two unbuffered channels
// (4 recorded events).
func BenchmarkPingPong(b *testing.B) {
	defer cpuPerOp(b)()
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
	defer cpuPerOp(b)()
	var mu sync.Mutex
	for i := 0; i < b.N; i++ {
		mu.Lock()
		mu.Unlock()
	}
}

// BenchmarkSelect2: one op is a buffered send and a 2-case select that
// receives it (2 recorded events, 4 records).
func BenchmarkSelect2(b *testing.B) {
	defer cpuPerOp(b)()
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
	defer cpuPerOp(b)()
	var n atomic.Int64
	for i := 0; i < b.N; i++ {
		n.Add(1)
	}
}

// BenchmarkMapLoad: one op is a sync.Map Load of a present key (1 recorded
// event).
func BenchmarkMapLoad(b *testing.B) {
	defer cpuPerOp(b)()
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
	defer cpuPerOp(b)()
	tm := time.NewTimer(time.Hour)
	c := reflect.ValueOf(tm.C)
	for i := 0; i < b.N; i++ {
		tm.Reset(0)
		c.Recv()
	}
}

// BenchmarkTimerReset: one op is a Reset of a timer that never fires (one
// TimerSet event and its TimedWait timing record): with BenchmarkTimerFire,
// the cost of a fire alone.
func BenchmarkTimerReset(b *testing.B) {
	defer cpuPerOp(b)()
	tm := time.NewTimer(time.Hour)
	for i := 0; i < b.N; i++ {
		tm.Reset(time.Hour)
	}
}

// BenchmarkSelect4Ready: one op is a 4-case select whose cases are all
// ready (each channel holds a value) and the send that refills the case it
// took (2 recorded events, 6 records): the select marks every ready case.
func BenchmarkSelect4Ready(b *testing.B) {
	defer cpuPerOp(b)()
	var cs [4]chan int
	for i := range cs {
		cs[i] = make(chan int, 2)
		cs[i] <- i
	}
	for i := 0; i < b.N; i++ {
		select {
		case v := <-cs[0]:
			cs[0] <- v
		case v := <-cs[1]:
			cs[1] <- v
		case v := <-cs[2]:
			cs[2] <- v
		case v := <-cs[3]:
			cs[3] <- v
		}
	}
}

// BenchmarkRLockRUnlock: one op is RLock+RUnlock of an RWMutex (2 recorded
// events): the stuck check's read-lock slots of the goroutine.
func BenchmarkRLockRUnlock(b *testing.B) {
	defer cpuPerOp(b)()
	var mu sync.RWMutex
	for i := 0; i < b.N; i++ {
		mu.RLock()
		mu.RUnlock()
	}
}

// BenchmarkGoUnderLock: one op is a go statement made while holding a mutex
// and the spawned goroutine's Done waited for (Lock, Unlock, Add, Done and
// Wait recorded, the spawn too): the holder's count of go statements.
func BenchmarkGoUnderLock(b *testing.B) {
	defer cpuPerOp(b)()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < b.N; i++ {
		mu.Lock()
		wg.Add(1)
		go wg.Done()
		mu.Unlock()
		wg.Wait()
	}
}

// BenchmarkTickerNew: one op is a ticker made and stopped (a ticker's
// creation is recorded as a timed wait naming its channel).
func BenchmarkTickerNew(b *testing.B) {
	defer cpuPerOp(b)()
	for i := 0; i < b.N; i++ {
		time.NewTicker(time.Hour).Stop()
	}
}
