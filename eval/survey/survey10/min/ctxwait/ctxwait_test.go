package ctxwait

import (
	"context"
	"testing"
	"time"
)

// The test waits for a value nobody sends, or for its context's deadline, 40 s away: it fails
// then, it is not stuck forever (the deadline's timer is pending).
func TestWaitsForDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	never := make(chan int)
	select {
	case <-never:
	case <-ctx.Done():
		t.Fatalf("nothing arrived before the deadline")
	}
}
