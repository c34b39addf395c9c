package app

import (
	"errors"
	"testing"

	"goweave.test/check"
)

// Failures raised by a dependency's assertions and by the module's own helpers: each is
// the module's use of its T at the line go test names (the first frame of the module
// that is not a t.Helper()).
func TestDependencyHelpers(t *testing.T) {
	check.Equal(t, 1, 2)                // @dh.equal
	check.NoError(t, errors.New("bad")) // @dh.noerror
	compare(t)                          // @dh.helper
	mine(t)
	direct(t) // @dh.direct
	done := make(chan struct{})
	go func() {
		defer close(done)
		check.Equal(t, 3, 4) // @dh.goroutine
	}()
	<-done
	check.Require(t, errors.New("stop")) // @dh.require
}

// compare is the module's helper around the dependency's: its caller's line is named.
func compare(t *testing.T) {
	t.Helper()
	check.Equal(t, 5, 6)
}

// mine is not a helper: its own line is named.
func mine(t *testing.T) {
	check.Equal(t, 7, 8) // @dh.mine
}

// direct is a helper that fails the test itself.
func direct(t *testing.T) {
	t.Helper()
	t.Error("direct")
}
