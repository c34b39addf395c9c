package reflectselect

import (
	"reflect"
	"sync"
	"testing"
	"time"
)

func produce(vs ...int) <-chan int {
	c := make(chan int)
	go func() {
		defer close(c)
		for _, v := range vs {
			c <- v
		}
	}()
	return c
}

// Each receive's partner is Merge's reflect.Select send, and the close after
// them is Merge's Value.Close: nothing to report.
func TestMerge(t *testing.T) {
	out := Merge(produce(1, 2), produce(3))
	sum := 0
	for i := 0; i < 3; i++ {
		v := <-out
		sum += v
	}
	if _, ok := <-out; ok || sum != 6 {
		t.Fatalf("sum %d, want 6 and a closed channel", sum)
	}
}

// The offers are joined before the channels are closed: nothing to report.
func TestOfferJoined(t *testing.T) {
	outs := []chan int{make(chan int, 1), make(chan int, 1)}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		Offer(outs, 7)
	}()
	wg.Wait()
	for _, out := range outs {
		reflect.ValueOf(out).Close()
	}
}

// The bug: the test sleeps instead of waiting for the offer before it closes the channel;
// in most runs the offer is done by then, in a slower one it sends on the closed channel and
// panics.
func TestOfferRacesClose(t *testing.T) {
	outs := []chan int{make(chan int, 1)}
	go Offer(outs, 7)
	time.Sleep(10 * time.Millisecond)
	reflect.ValueOf(outs[0]).Close()
}

// The bug: the test takes one value and leaves; Merge's goroutine stays blocked
// forever in its reflect.Select send.
func TestMergeFirstOnly(t *testing.T) {
	out := Merge(produce(1, 2))
	if v := <-out; v != 1 {
		t.Fatal(v)
	}
}
