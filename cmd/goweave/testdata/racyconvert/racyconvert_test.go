// Package racyconvert reproduces survey 9's silent failures in sony/gobreaker (v1,
// TestCustomCircuitBreaker and TestGeneration): the test reads a struct field that a goroutine
// writes under the breaker's lock, and the read is the conversion of the struct to an interface
// (assert.Equal's argument). The race detector reports it with runtime.convTnoptr as the read's
// top frame and the test fails ("race detected during execution of test") in every run under
// go test -race.
package racyconvert

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

type counts struct {
	requests, successes uint32
}

type breaker struct {
	mu     sync.Mutex
	counts counts
}

func (b *breaker) request() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.counts.requests++
}

func equal(t *testing.T, want, got interface{}) {
	t.Helper()
	if fmt.Sprint(want) != fmt.Sprint(got) {
		t.Logf("%v != %v", want, got) // the count depends on the timing: only the race fails the test
	}
}

func TestCountsRead(t *testing.T) {
	b := &breaker{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.request()
	}()
	time.Sleep(5 * time.Millisecond)
	equal(t, counts{requests: 1}, b.counts) // unsynchronised read of the struct, as an interface
	<-done
}
