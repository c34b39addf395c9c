// Package depatomicwrap is a dependency with an atomic flag type over sync/atomic's function
// forms, as go.uber.org/atomic's Bool: methods small enough to be inlined into the caller.
package depatomicwrap

import "sync/atomic"

// Bool is an atomic flag.
type Bool struct{ v uint32 }

// Load reports the flag.
func (b *Bool) Load() bool { return atomic.LoadUint32(&b.v) == 1 }

// Store sets or clears the flag.
func (b *Bool) Store(x bool) {
	var n uint32
	if x {
		n = 1
	}
	atomic.StoreUint32(&b.v, n)
}
