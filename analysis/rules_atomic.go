package analysis

import "github.com/goweave/goweave/analysis/trace"

// atomicState is the engine's state of one atomic variable (keyed by its address): the join
// of the clocks of every release on it so far.
type atomicState struct {
	vc, wvc vclock
}

// Rules AtomicLoad, AtomicStore, AtomicRMW. The Go memory model makes sync/atomic
// sequentially consistent: an atomic operation that observes the effect of another is
// synchronized after it. A Load is stamped after it read and a write before it wrote, so a
// Load that observed a write comes later in the walk; the rule orders every acquire (Load,
// read-modify-write) after every earlier release (Store, read-modify-write) on the same
// address. That also orders an acquire after a release whose value it did not observe (the
// trace does not say which value was read): more order than the run had, which can hide a
// prediction but never invents one. The order is forced by the values the program observed,
// not incidental like a mutex's, so it enters the weak clock too.
func (e *engine) atomicOp(i int32, ev *trace.Event) {
	g := e.tick(i)
	if e.atomics == nil {
		e.atomics = map[uint64]*atomicState{}
	}
	a := e.atomics[ev.A]
	if a == nil {
		a = &atomicState{}
		e.atomics[ev.A] = a
	}
	if ev.Kind != trace.KindAtomicStore {
		e.ck.join(&e.vc[g], &a.vc)
		e.ck.join(&e.wvc[g], &a.wvc)
	}
	if ev.Kind != trace.KindAtomicLoad {
		e.ck.join(&a.vc, &e.vc[g])
		e.ck.join(&a.wvc, &e.wvc[g])
	}
}
