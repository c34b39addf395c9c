// Package probe is a minimal program for checking that a toolchain's
// patched runtime records: one channel handoff between two goroutines.
package probe

import "testing"

func TestProbe(t *testing.T) {
	c := make(chan int) // @probe.make
	go func() {
		c <- 1 // @probe.send
	}()
	if v := <-c; v != 1 { // @probe.recv
		t.Fatal(v)
	}
}
