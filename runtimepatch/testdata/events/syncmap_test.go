package events

import (
	"sync"
	"testing"
)

// TestSyncMap: sync.Map's operations called by the user are atomic events
// at the user's lines, on one address per map and key.
func TestSyncMap(t *testing.T) {
	var m, other sync.Map
	done := make(chan struct{})
	go func() {
		m.Store("limit", 3) // @map.store
		close(done)
	}()
	<-done
	if v, ok := m.Load("limit"); !ok || v != 3 { // @map.load
		t.Fatal("limit not loaded")
	}
	m.Load("other")                 // @map.otherkey
	other.Load("limit")             // @map.othermap
	m.LoadOrStore("limit", 4)       // @map.loadorstore
	m.Swap("limit", 5)              // @map.swap
	m.CompareAndSwap("limit", 5, 6) // @map.cas
	m.CompareAndDelete("limit", 7)  // @map.cad
	m.LoadAndDelete("limit")        // @map.loadanddelete
	m.Delete("limit")               // @map.delete
	load := m.Load                  // a method value: called through a wrapper
	load("limit")                   // @map.methodvalue
	m.Store("a", 1)
	m.Store("b", 2)
	m.Range(func(k, v any) bool { return true }) // @map.range
	m.Clear()                                    // @map.clear
}
