package app

import (
	"testing"

	"goweave.test/atomicwrap"
)

// A dependency's atomic helpers called by the module: the inlined ones are the module's
// operations on its own words (recorded at the module's lines), the dependency's own
// functions are not.
func TestDependencyAtomics(t *testing.T) {
	var b atomicwrap.Bool
	var f atomicwrap.Flag
	var c atomicwrap.Counter
	done := make(chan struct{})
	go func() {
		b.Store(true) // @dep.bool.store
		f.Set()       // @dep.flag.set
		close(done)
	}()
	<-done
	if !b.Load() { // @dep.bool.load
		t.Error("flag not set")
	}
	if !f.IsSet() { // @dep.flag.load
		t.Error("flag not set")
	}
	c.Inc()           // @dep.counter.inc
	if c.Get() != 1 { // @dep.counter.get
		t.Error("count")
	}
}
