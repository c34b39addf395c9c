// Package atomicwrap is a dependency with atomic wrapper types, as go.uber.org/atomic has:
// small methods the compiler inlines into the caller, over sync/atomic's functions (Bool)
// and over a typed value (Flag), and one that is not inlined (Counter.Inc).
package atomicwrap

import "sync/atomic"

// Uint32 is an atomic uint32 over the function forms.
type Uint32 struct{ v uint32 }

func (i *Uint32) Load() uint32   { return atomic.LoadUint32(&i.v) }
func (i *Uint32) Store(n uint32) { atomic.StoreUint32(&i.v, n) }

// Bool is a flag over a Uint32.
type Bool struct{ v Uint32 }

func (b *Bool) Load() bool { return b.v.Load() == 1 }

func (b *Bool) Store(x bool) {
	var n uint32
	if x {
		n = 1
	}
	b.v.Store(n)
}

// Flag is a flag over sync/atomic's typed Bool.
type Flag struct{ v atomic.Bool }

func (f *Flag) Set()        { f.v.Store(true) }
func (f *Flag) IsSet() bool { return f.v.Load() }

// Counter's Inc is the dependency's own function, never inlined into its caller.
type Counter struct{ n int64 }

//go:noinline
func (c *Counter) Inc() { atomic.AddInt64(&c.n, 1) }

//go:noinline
func (c *Counter) Get() int64 { var f Flag; f.Set(); return atomic.LoadInt64(&c.n) }
