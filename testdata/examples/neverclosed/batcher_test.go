package neverclosed

import "testing"

// TestBatches never calls Close: the batcher's goroutine waits for more input forever.
func TestBatches(t *testing.T) {
	b := New(2)
	b.Add(1)
	b.Add(2)
	if got := <-b.Batches(); len(got) != 2 {
		t.Fatalf("batch %v", got)
	}
}
