package selectcause

import (
	"context"
	"sync"
	"testing"
)

func TestCanceledGet(t *testing.T) {
	p := NewPool(1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Get(ctx); err == nil {
		t.Fatalf("Get with a cancelled context took a slot")
	}
}

// Fails when the worker writes first; the select's choice does not matter.
func TestFirstWriter(t *testing.T) {
	var mu sync.Mutex
	first := ""
	done := make(chan struct{})
	go func() {
		mu.Lock()
		if first == "" {
			first = "worker"
		}
		mu.Unlock()
		close(done)
	}()
	mu.Lock()
	if first == "" {
		first = "test"
	}
	mu.Unlock()
	<-done
	a, b := make(chan int, 1), make(chan int, 1)
	a <- 1
	b <- 1
	select {
	case <-a:
	case <-b:
	}
	if first != "test" {
		t.Fatalf("first writer %s", first)
	}
}
