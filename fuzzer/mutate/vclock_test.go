package mutate_test

import (
	"cmp"
	"slices"

	"github.com/goweave/goweave/analysis/trace"
)

// vcHB is a small vector-clock happens-before for the tests and benchmarks of this package
// (the campaign uses package analysis): program order, spawns, unlock -> lock, the k-th send
// -> the k-th receive, close -> receive of closed, the Do that ran -> the others, Add/Done ->
// Wait.
type vcHB struct {
	g      []int      // dense goroutine index per event
	clocks [][]uint32 // clock of each event after it
}

func newVCHB(t *trace.Trace) *vcHB {
	h := &vcHB{g: make([]int, len(t.Events)), clocks: make([][]uint32, len(t.Events))}
	dense := map[uint64]int{}
	for _, e := range t.Events {
		for _, g := range []uint64{e.G, e.A} {
			if _, ok := dense[g]; !ok && (g == e.G || e.Kind == trace.KindGoSpawn) {
				dense[g] = len(dense)
			}
		}
	}
	n := len(dense)
	cur := make([][]uint32, n)
	for i := range cur {
		cur[i] = make([]uint32, n)
	}
	join := func(dst, src []uint32) {
		for k := range dst {
			dst[k] = max(dst[k], src[k])
		}
	}
	order := make([]int, len(t.Events))
	for i := range order {
		order[i] = i
	}
	key := func(i int) uint64 {
		if p := t.Events[i].Post; p != 0 {
			return p
		}
		return 1<<63 + t.Events[i].Pre
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(key(a), key(b)) })
	release := map[uint64][]uint32{}
	sends := map[[2]uint64][]uint32{}
	for _, i := range order {
		e := &t.Events[i]
		g := dense[e.G]
		c := cur[g]
		c[g]++
		obj, dir, seq := e.Obj, 0, e.A
		switch e.Kind {
		case trace.KindChanSend:
			dir = 1
		case trace.KindChanRecv:
			dir = -1
		case trace.KindSelect:
			if e.Post != 0 && e.A != trace.SelectDefault {
				for _, cs := range e.Cases {
					if uint64(cs.Index) == e.A {
						obj, seq, dir = cs.Obj, e.B, -1
						if cs.Send {
							dir = 1
						}
					}
				}
			}
		}
		if e.Post != 0 {
			switch {
			case dir == 1:
				sends[[2]uint64{obj, seq}] = slices.Clone(c)
			case dir == -1 && e.Flags.Has(trace.FlagClosed):
				if r, ok := release[obj]; ok {
					join(c, r)
				}
			case dir == -1:
				if s, ok := sends[[2]uint64{obj, seq}]; ok {
					join(c, s)
				}
			}
			switch e.Kind {
			case trace.KindGoSpawn:
				copy(cur[dense[e.A]], c)
			case trace.KindUnlock, trace.KindChanClose, trace.KindWgAdd, trace.KindWgDone:
				if r, ok := release[e.Obj]; ok {
					join(c, r)
				}
				release[e.Obj] = slices.Clone(c)
			case trace.KindOnceDo:
				if e.Flags.Has(trace.FlagSuccess) {
					release[e.Obj] = slices.Clone(c)
				} else if r, ok := release[e.Obj]; ok {
					join(c, r)
				}
			case trace.KindLock, trace.KindWgWait:
				if r, ok := release[e.Obj]; ok {
					join(c, r)
				}
			case trace.KindTryLock:
				if r, ok := release[e.Obj]; ok && e.Flags.Has(trace.FlagSuccess) {
					join(c, r)
				}
			}
		}
		h.g[i] = g
		h.clocks[i] = slices.Clone(c)
	}
	return h
}

func (h *vcHB) HappensBefore(i, j int) bool {
	return i != j && h.clocks[i][h.g[i]] <= h.clocks[j][h.g[i]]
}

func (h *vcHB) Concurrent(i, j int) bool {
	return i != j && !h.HappensBefore(i, j) && !h.HappensBefore(j, i)
}
