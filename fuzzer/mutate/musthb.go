package mutate

import (
	"cmp"
	"slices"

	"github.com/goweave/goweave/analysis/trace"
)

// MustHappenBefore returns the part of a recorded run's happens-before relation that every
// schedule of the same program keeps: program order, spawns, a send before the receive that
// got its value (and, on a full buffer, a receive before the send that waited for its
// slot; on an unbuffered channel the receiver's earlier operations before the sender's
// later ones), a close before the receives it woke, every Add and Done of a WaitGroup
// before the Wait that returned, the Once.Do that ran before the ones that waited for it,
// and a Signal or Broadcast before the Cond.Wait it woke.
//
// Unlike the analysis' relation it has no edges from the order in which a mutex was
// taken, nor between the Adds and Dones of a WaitGroup: those orders are what a schedule
// may change. It is what the rewrites of predicted findings (Confirm) schedule around.
func MustHappenBefore(t *trace.Trace) HB { return mustHappenBefore(t, nil) }

// mustHappenBefore is MustHappenBefore where the receives in cut do not follow the send
// whose value they got (a rewrite that makes them return because of a close instead), nor
// the Waits in cut the Adds and Dones (one that makes a Wait run before an Add).
func mustHappenBefore(t *trace.Trace, cut map[int]bool) *mustHB {
	m := &mustHB{gOf: make([]int32, len(t.Events)), epoch: make([]uint32, len(t.Events)), clock: make([][]uint32, len(t.Events))}
	m.compute(t, cut)
	return m
}

type mustHB struct {
	gOf   []int32    // dense goroutine index per event; -1 none
	epoch []uint32   // the event's tick of its goroutine; 0 never processed
	clock [][]uint32 // per event: its goroutine's clock after the event's joins (shared)
}

func (m *mustHB) HappensBefore(i, j int) bool {
	if i == j || i < 0 || j < 0 || i >= len(m.gOf) || j >= len(m.gOf) {
		return false
	}
	gi, gj := m.gOf[i], m.gOf[j]
	if gi < 0 || gj < 0 || m.epoch[i] == 0 || m.epoch[j] == 0 {
		return false
	}
	if gi == gj {
		return m.epoch[i] < m.epoch[j]
	}
	return m.epoch[i] <= m.clock[j][gi]
}

func (m *mustHB) Concurrent(i, j int) bool {
	return i != j && !m.HappensBefore(i, j) && !m.HappensBefore(j, i)
}

// chanKey names the k-th completed value transfer on a channel.
type chanKey struct {
	obj uint64
	seq uint64
}

func (m *mustHB) compute(t *trace.Trace, cut map[int]bool) {
	dense := map[uint64]int32{}
	for i := range t.Events {
		e := &t.Events[i]
		m.gOf[i] = -1
		if e.G == 0 {
			continue
		}
		if _, ok := dense[e.G]; !ok {
			dense[e.G] = int32(len(dense))
		}
		m.gOf[i] = dense[e.G]
	}
	ng := len(dense)
	vc := make([][]uint32, ng)
	snap := make([][]uint32, ng) // the clock last shared by the goroutine's events
	for g := range vc {
		vc[g] = make([]uint32, ng)
	}
	join := func(g int32, c []uint32) {
		if c == nil {
			return
		}
		for k, v := range c {
			if v > vc[g][k] {
				vc[g][k] = v
				snap[g] = nil
			}
		}
	}
	capacity := map[uint64]uint64{}
	for i := range t.Events {
		if e := &t.Events[i]; e.Kind == trace.KindChanMake {
			capacity[e.Obj] = e.A
		} else if e.Kind == trace.KindChanSend || e.Kind == trace.KindChanRecv {
			capacity[e.Obj] = max(capacity[e.Obj], e.C)
		}
	}

	// Completion order (completionKeys); operations that never completed come last, by request.
	order := make([]int, 0, len(t.Events))
	for i := range t.Events {
		if m.gOf[i] >= 0 {
			order = append(order, i)
		}
	}
	done := completionKeys(t) // a receive that woke a blocked sender before that sender
	key := func(i int) (bool, uint64) {
		e := &t.Events[i]
		if e.Completed() {
			return false, done[i]
		}
		return true, e.Pre
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ia, pa := key(a)
		ib, pb := key(b)
		if ia != ib {
			if ia {
				return 1
			}
			return -1
		}
		return cmp.Compare(pa, pb)
	})

	childInit := map[uint64][]uint32{} // goid -> clock at its spawn
	started := make([]bool, ng)
	sends := map[chanKey][]uint32{}  // clock after each completed send
	sendG := map[chanKey]int32{}     // its goroutine
	recvs := map[chanKey][]uint32{}  // clock after each completed value receive
	closes := map[uint64][]uint32{}  // clock after the close of each channel
	acc := map[uint64][]uint32{}     // WaitGroup Adds/Dones, Cond signals: joined clocks
	onceRan := map[uint64][]uint32{} // the Once.Do that ran f
	for _, i := range order {
		e := &t.Events[i]
		g := m.gOf[i]
		if !started[g] {
			started[g] = true
			join(g, childInit[e.G])
		}
		// Joins that make this event wait for another goroutine's.
		obj, dir, seq, closed := transfer(e)
		if cut[i] {
			dir = 0
		}
		switch {
		case dir < 0 && closed:
			join(g, closes[obj])
		case dir < 0 && seq > 0:
			join(g, sends[chanKey{obj, seq}])
		case dir > 0 && seq > capacity[obj] && capacity[obj] > 0:
			join(g, recvs[chanKey{obj, seq - capacity[obj]}])
		}
		switch e.Kind {
		case trace.KindWgWait, trace.KindCondWait:
			if e.Completed() && !cut[i] {
				join(g, acc[e.Obj])
			}
		case trace.KindOnceDo:
			if !e.Flags.Has(trace.FlagSuccess) {
				join(g, onceRan[e.Obj])
			}
		}
		vc[g][g]++
		m.epoch[i] = vc[g][g]
		if snap[g] == nil {
			snap[g] = slices.Clone(vc[g])
		}
		m.clock[i] = snap[g]
		if !e.Completed() {
			continue
		}
		// What this event publishes.
		switch {
		case dir > 0 && seq > 0:
			k := chanKey{obj, seq}
			sends[k], sendG[k] = slices.Clone(vc[g]), g
		case dir < 0 && seq > 0 && !closed:
			k := chanKey{obj, seq}
			recvs[k] = slices.Clone(vc[g])
			if s, ok := sendG[k]; ok && capacity[obj] == 0 && s != g {
				join(s, vc[g]) // the sender went on only once the receiver came
			}
		}
		switch e.Kind {
		case trace.KindGoSpawn:
			childInit[e.A] = slices.Clone(vc[g])
		case trace.KindChanClose:
			closes[e.Obj] = slices.Clone(vc[g])
		case trace.KindWgAdd, trace.KindWgDone, trace.KindCondSignal, trace.KindCondBroadcast:
			a := acc[e.Obj]
			if a == nil {
				a = make([]uint32, ng)
				acc[e.Obj] = a
			}
			for k, v := range vc[g] {
				a[k] = max(a[k], v)
			}
		case trace.KindOnceDo:
			if e.Flags.Has(trace.FlagSuccess) {
				onceRan[e.Obj] = slices.Clone(vc[g])
			}
		}
	}
}

// transfer describes a channel operation: its channel, +1 send / -1 receive / 0 other, the
// sequence number of the value it moved (0 none), and whether a receive returned because
// the channel was closed.
func transfer(e *trace.Event) (obj uint64, dir int, seq uint64, closed bool) {
	switch e.Kind {
	case trace.KindChanSend:
		return e.Obj, 1, e.A, false
	case trace.KindChanRecv:
		return e.Obj, -1, e.A, e.Flags.Has(trace.FlagClosed)
	case trace.KindSelect:
		if c, ok := chosenCase(e); ok {
			if c.Send {
				return c.Obj, 1, e.B, false
			}
			return c.Obj, -1, e.B, e.Flags.Has(trace.FlagClosed)
		}
	}
	return 0, 0, 0, false
}
