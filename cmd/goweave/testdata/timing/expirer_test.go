package timing

import (
	"testing"
	"time"
)

// The entry lives 50 ms; the test checks it 20 ms after setting it, and stays until it has
// expired. The check fails only when the test is late by 30 ms more: the loop's timer,
// reset to the TTL, fired first.
func TestKeepsEntryUntilTTL(t *testing.T) {
	e := NewExpirer()
	defer e.Close()
	e.Set(50 * time.Millisecond)
	time.Sleep(20 * time.Millisecond)
	if !e.Has() {
		t.Error("the entry expired before its TTL")
	}
	time.Sleep(60 * time.Millisecond)
}
