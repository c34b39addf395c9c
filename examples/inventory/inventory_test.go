package inventory

import (
	"sync"
	"testing"
)

func TestAddAndRestockConcurrently(t *testing.T) {
	s := NewStore()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		s.AddProduct("p1", "teapot")
	}()
	go func() {
		defer wg.Done()
		s.Restock("p1", 5)
	}()
	wg.Wait() // related "deadlock"
	if got := s.Units("p1"); got != 5 {
		t.Errorf("units = %d, want 5", got)
	}
}
