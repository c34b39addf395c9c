package analysis

import "github.com/goweave/goweave/analysis/trace"

// onceState is the engine's state of one sync.Once.
type onceState struct {
	runner  int32 // the Do that ran f (prepass); -1 none
	vc, wvc vclock
	done    bool
	early   []int32 // Dos that returned before the runner's Do was processed
}

// Rule OnceDo: the Do that ran f publishes its clock when it returns; every other Do
// returned after f completed and joins it. (When a non-running Do is processed before the
// running one, the runner's goroutine has already done everything f did, so its current
// clock is joined.)
func (e *engine) onceDo(i int32, ev *trace.Event) {
	g := e.tick(i)
	x := e.objOf[i]
	if x < 0 {
		return
	}
	o := &e.onces[x]
	if ev.Flags.Has(trace.FlagSuccess) {
		e.ck.assign(&o.vc, &e.vc[g])
		e.ck.assign(&o.wvc, &e.wvc[g])
		o.done = true
		for _, n := range o.early {
			if !e.hbAt(n, g, false) {
				e.f.pair(e.t, PairOnce, i, n)
			}
		}
		o.early = nil
		return
	}
	switch {
	case o.done:
		if !e.hbAt(o.runner, g, false) {
			e.f.pair(e.t, PairOnce, o.runner, i)
		}
		e.ck.join(&e.vc[g], &o.vc)
		e.ck.join(&e.wvc[g], &o.wvc)
	case o.runner >= 0 && e.running(e.r.gOf[o.runner]):
		gr := e.r.gOf[o.runner]
		e.ck.join(&e.vc[g], &e.vc[gr])
		e.ck.join(&e.wvc[g], &e.wvc[gr])
		if len(o.early) < 64 {
			o.early = append(o.early, i)
		}
	}
}
