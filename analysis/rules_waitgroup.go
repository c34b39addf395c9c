package analysis

import (
	"slices"

	"github.com/goweave/goweave/analysis/trace"
)

// wgState is the engine's state of one WaitGroup.
type wgState struct {
	obj     uint64
	vc, wvc []uint32
	adders  []int32 // goroutines that Add a positive delta (prepass)
	facts   *wgFacts
	last    int32
	// When the group's clocks are exactly those of goroutine owner right after its event
	// with epoch ep (one goroutine did the Adds and Dones so far, or each knew the previous
	// one's), a goroutine that knows (owner, ep) knows them: joins become copies or nothing.
	owner int32 // -1: the clocks are a join of several
	ep    uint32
}

// wgFacts is what negative-waitgroup matching needs: every Add and Done, and for each
// Done the clock entries of the adding goroutines.
type wgFacts struct {
	obj    uint64
	adders []int32
	adds   []int32  // events with a positive delta
	dones  []int32  // events with a negative delta
	proj   []uint32 // len(dones) x len(adders)
}

func (w *wgState) addAdder(g int32) {
	if !slices.Contains(w.adders, g) {
		w.adders = append(w.adders, g)
	}
}

// Rule WgAdd / WgDone: the counter change is merged into the group's clock (a Wait that
// returns happens after every Add and Done before it).
func (e *engine) wgAdd(i int32, ev *trace.Event) {
	g := e.tick(i)
	x := e.objOf[i]
	if x < 0 {
		return
	}
	w := &e.wgs[x]
	fresh := w.vc == nil
	if fresh {
		w.vc, w.wvc = e.slab.alloc(), e.slab.alloc()
		w.facts = &wgFacts{obj: w.obj, adders: w.adders}
		e.f.wgs = append(e.f.wgs, w.facts)
	}
	if int64(ev.B) < 0 {
		e.f.negativeWG = append(e.f.negativeWG, evPair{i, w.last})
	}
	if fresh || w.owner >= 0 && w.ep <= e.vc[g][w.owner] && w.ep <= e.wvc[g][w.owner] {
		// g's clocks contain the group's: the join is g's clocks
		copy(w.vc, e.vc[g])
		copy(w.wvc, e.wvc[g])
		w.owner, w.ep = g, e.vc[g][g]
	} else {
		join(w.vc, e.vc[g])
		join(w.wvc, e.wvc[g])
		w.owner = -1
	}
	wf := w.facts
	switch delta := int64(ev.A); {
	case delta > 0:
		wf.adds = append(wf.adds, i)
	case delta < 0:
		wf.dones = append(wf.dones, i)
		for _, a := range wf.adders {
			wf.proj = append(wf.proj, e.vc[g][a])
		}
	}
	w.last = i
}

// Rule WgWait: a Wait that returned happens after every Add and Done merged so far.
func (e *engine) wgWait(i int32, ev *trace.Event) {
	g := e.tick(i)
	x := e.objOf[i]
	if x < 0 || e.wgs[x].vc == nil {
		return
	}
	w := &e.wgs[x]
	if w.owner < 0 || e.vc[g][w.owner] < w.ep {
		join(e.vc[g], w.vc)
	}
	if w.owner < 0 || e.wvc[g][w.owner] < w.ep {
		join(e.wvc[g], w.wvc)
	}
}
