package panicanchor

import (
	"runtime/debug"
	"testing"
)

func fillOrReset() *Table {
	tb := New()
	tb.RequestReset()
	tb.RequestFill()
	tb.Apply() // both requests pending: the select takes either

	return tb
}

// The test recovers Put's panic and fails with its stack.
func TestRecovered(t *testing.T) {
	tb := fillOrReset()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("Put panicked: %v\n%s", r, debug.Stack()) // the test's failure
		}
	}()
	tb.Put("a", 1)
}

// Do raises Put's panic again from its deferred function.
func TestRepanic(t *testing.T) {
	tb := fillOrReset()
	Do("put", func() { tb.Put("a", 1) })
}
