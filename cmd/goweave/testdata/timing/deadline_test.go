package timing

import (
	"context"
	"testing"
	"time"
)

// A consumer forwards what a producer sends until a 20 ms deadline stops it: a producer
// delayed past the deadline loses its values. The test's deadline, not a bug.
func TestForwardsBeforeDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	in, out := make(chan int), make(chan int, 3)
	go func() {
		for i := range 3 {
			select {
			case in <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		defer close(out)
		for {
			select {
			case v := <-in:
				out <- v
			case <-ctx.Done():
				return
			}
		}
	}()
	n := 0
	for range out {
		n++
	}
	if n != 3 {
		t.Fatalf("forwarded %d values before the deadline, want 3", n)
	}
}
