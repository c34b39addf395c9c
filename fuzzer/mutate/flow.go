package mutate

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// Flow parameters: ADVOCATE sleeps 3 s; a delay here ends as soon as the other operation is
// admitted, so the window only bounds the impossible cases.
const (
	DefaultDelayWindow = 50 * time.Millisecond
	flowMaxPerRun      = 10
	flowLookahead      = 16 // competitors considered per operation: the next ones on its object
)

// Flow proposes, for each pair of HB-concurrent operations of the same kind on the same
// object in different goroutines where the first one succeeded (Once.Do that ran f, a Lock or
// successful TryLock against a failed TryLock, two sends, two receives), a schedule that
// delays the first until the second is admitted, so the other one wins.
type Flow struct {
	Window    time.Duration // default DefaultDelayWindow
	MaxPerRun int           // default 10
	MaxQueued int           // how often one delay may be proposed (default flowMaxQueued)

	mu     sync.Mutex
	queued map[string]int
}

// flowMaxQueued lets a delay be proposed again by later runs that show the same pair: a
// delayed run on a loaded machine can still lose the race (the other goroutine slept past
// the window), and one such loss must not retire the delay for the whole campaign.
const flowMaxQueued = 3

// NewFlow returns a Flow strategy with default parameters.
func NewFlow() *Flow {
	return &Flow{Window: DefaultDelayWindow, MaxPerRun: flowMaxPerRun, MaxQueued: flowMaxQueued}
}

// Name implements Strategy.
func (f *Flow) Name() string { return "flow" }

// FlowPair is a pair of operations whose order a flow mutation reverses: First ran first
// (and succeeded), Second should run first instead.
type FlowPair struct{ First, Second int }

// flowClass groups operations that compete with each other on one object; 0 = not a flow op.
func flowClass(e *trace.Event) int {
	switch e.Kind {
	case trace.KindOnceDo:
		return 1
	case trace.KindLock, trace.KindTryLock:
		return 2
	}
	switch chanDir(e) {
	case 1:
		return 3
	case -1:
		return 4
	}
	return 0
}

// FlowPairs returns r.FlowPairs (those whose operations can be named in a schedule) or, when
// the run has none, finds the pairs from HB, most promising first: pairs whose second
// operation lost (a Once.Do that did not run f, a failed TryLock), then two Locks, then sends,
// then receives, each group in recorded order.
//
// A Once.Do that did not run, or a Lock, happens after the operation it lost to because of
// the object itself; such a pair still counts as concurrent when the first operation does
// not happen before the second's goroutine reached it (its previous operation, or its spawn).
func FlowPairs(r *Run) []FlowPair {
	r.Prepare()
	if r.FlowPairs != nil {
		var out []FlowPair
		for _, p := range r.FlowPairs {
			if r.Names.Schedulable(p.First) && r.Names.Schedulable(p.Second) {
				out = append(out, p)
			}
		}
		return out
	}
	t := r.Trace
	byObj := map[uint64][]int{}
	for i := range t.Events {
		e := &t.Events[i]
		if flowClass(e) != 0 && object(e) != 0 && r.Names.Schedulable(i) {
			byObj[object(e)] = append(byObj[object(e)], i)
		}
	}
	before := goroutinePredecessors(t)
	var lost, locks, sends, recvs []FlowPair
	objs := make([]uint64, 0, len(byObj))
	for o := range byObj {
		objs = append(objs, o)
	}
	slices.Sort(objs)
	for _, o := range objs {
		ops := byObj[o]
		slices.SortStableFunc(ops, func(a, b int) int { return cmpU64(stamp(&t.Events[a]), stamp(&t.Events[b])) })
		for x, i := range ops {
			first := &t.Events[i]
			if !succeeded(first) {
				continue
			}
			for _, j := range ops[x+1 : min(len(ops), x+1+flowLookahead)] {
				second := &t.Events[j]
				if second.G == first.G || flowClass(second) != flowClass(first) {
					continue
				}
				switch flowClass(first) {
				case 1: // Once.Do: only the first ran f
					if concurrentBefore(r.HB, i, j, before[j]) {
						lost = append(lost, FlowPair{i, j})
					}
				case 2:
					switch {
					case second.Kind == trace.KindTryLock && !second.Flags.Has(trace.FlagSuccess):
						if concurrentBefore(r.HB, i, j, before[j]) {
							lost = append(lost, FlowPair{i, j})
						}
					case second.Kind == trace.KindLock && second.Completed():
						if concurrentBefore(r.HB, i, j, before[j]) {
							locks = append(locks, FlowPair{i, j})
						}
					}
				case 3:
					if r.HB.Concurrent(i, j) {
						sends = append(sends, FlowPair{i, j})
					}
				case 4:
					if r.HB.Concurrent(i, j) {
						recvs = append(recvs, FlowPair{i, j})
					}
				}
			}
		}
	}
	return slices.Concat(lost, locks, sends, recvs)
}

// concurrentBefore reports whether i and j are concurrent, or i happens before j only through
// j itself: i does not happen before prev, the event j's goroutine performed just before j.
func concurrentBefore(hb HB, i, j, prev int) bool {
	if hb.Concurrent(i, j) {
		return true
	}
	if hb.HappensBefore(j, i) {
		return false
	}
	return prev < 0 || (prev != i && !hb.HappensBefore(i, prev))
}

// goroutinePredecessors maps each event to the event its goroutine performed just before it
// (its spawn for the first one; -1 if unknown).
func goroutinePredecessors(t *trace.Trace) []int {
	order := make([]int, len(t.Events))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmpU64(t.Events[a].Pre, t.Events[b].Pre) })
	last := map[uint64]int{}
	for _, i := range order {
		if e := &t.Events[i]; e.Kind == trace.KindGoSpawn {
			if _, ok := last[e.A]; !ok {
				last[e.A] = i
			}
		}
	}
	prev := make([]int, len(t.Events))
	for _, i := range order {
		g := t.Events[i].G
		if p, ok := last[g]; ok {
			prev[i] = p
		} else {
			prev[i] = -1
		}
		last[g] = i
	}
	return prev
}

// stamp orders operations on one object: completion, or request for those that never completed.
func stamp(e *trace.Event) uint64 {
	if e.Completed() {
		return e.Post
	}
	return ^uint64(0)/2 + e.Pre
}

func succeeded(e *trace.Event) bool {
	if !e.Completed() {
		return false
	}
	switch e.Kind {
	case trace.KindOnceDo, trace.KindTryLock:
		return e.Flags.Has(trace.FlagSuccess)
	case trace.KindChanRecv:
		return !e.Flags.Has(trace.FlagClosed)
	case trace.KindSelect:
		return !e.Flags.Has(trace.FlagClosed)
	}
	return true
}

// Next implements Strategy: one delay schedule per pair, at most MaxPerRun per run.
func (f *Flow) Next(r *Run) []Mutation {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.queued == nil {
		f.queued = map[string]int{}
	}
	var out []Mutation
	sites := siteStats(r.Trace)
	for _, p := range fromLoopStart(r, rankPairs(r.Trace, FlowPairs(r), sites), sites) {
		if len(out) >= orDefault(f.MaxPerRun, flowMaxPerRun) || r.Late() {
			break
		}
		s := &schedule.Schedule{Delays: []schedule.Delay{{
			Op: r.Names.Ops[p.First], Until: r.Names.Ops[p.Second], Window: flowWindow(r.Trace, p.First, p.Second, orDefault(f.Window, DefaultDelayWindow)),
		}}}
		key, ok := keyOf(f.Name(), s)
		if !ok || f.queued[key] >= max(f.MaxQueued, 1) {
			continue
		}
		if f.queued[key] == 0 && r.Proposed != nil && r.Proposed(key) {
			continue // an earlier campaign ran it (saved state): no retry across campaigns
		}
		f.queued[key]++
		note := fmt.Sprintf("delay %s until %s", shortOp(r.Names.Ops[p.First]), shortOp(r.Names.Ops[p.Second]))
		if n := f.queued[key]; n > 1 {
			// A new key, or the campaign would take the retry for a duplicate.
			key = fmt.Sprintf("%s#%d", key, n)
			note += fmt.Sprintf(" (attempt %d)", n)
		}
		out = append(out, Mutation{Strategy: f.Name(), Key: key, Schedule: s, Note: note})
	}
	return out
}

// opSite is one source position as reached by one goroutine.
type opSite struct {
	g   uint64
	pos uint32
}

// siteStat is what the flow ranking knows of an opSite: how many operations its goroutine
// ran there and the first of them (earliest request), the start of a loop.
type siteStat struct{ runs, first int }

func siteStats(t *trace.Trace) map[opSite]siteStat {
	sites := map[opSite]siteStat{}
	for i := range t.Events {
		e := &t.Events[i]
		k := opSite{e.G, e.Pos}
		st, ok := sites[k]
		if !ok || e.Pre < t.Events[st.first].Pre {
			st.first = i
		}
		st.runs++
		sites[k] = st
	}
	return sites
}

// rankPairs orders the pairs most promising first. A pair between different code comes
// before one between sibling goroutines doing the same thing (the same position, reached by
// goroutines started at one site: reversing them mostly swaps which sibling does what), and
// a pair whose operations each run at most twice in their goroutine before one involving a
// loop's operation (a poll: delaying one iteration mostly shifts the loop). Pairs of the
// same two positions stay together, in the order first found, earliest first operation
// first: delaying an earlier operation changes more of what follows.
func rankPairs(t *trace.Trace, pairs []FlowPair, sites map[opSite]siteStat) []FlowPair {
	spawnedAt := map[uint64]uint32{}
	for i := range t.Events {
		if e := &t.Events[i]; e.Kind == trace.KindGoSpawn {
			spawnedAt[e.A] = e.Pos
		}
	}
	rank := func(p FlowPair) int {
		a, b := &t.Events[p.First], &t.Events[p.Second]
		r := 0
		switch {
		case a.Pos == b.Pos && spawnedAt[a.G] == spawnedAt[b.G]:
			r = 4
		case a.Pos == b.Pos:
			r = 2
		}
		if sites[opSite{a.G, a.Pos}].runs > 2 || sites[opSite{b.G, b.Pos}].runs > 2 {
			r++
		}
		return r
	}
	type posPair struct{ first, second uint32 }
	group := map[posPair]int{}
	for _, p := range pairs {
		k := posPair{t.Events[p.First].Pos, t.Events[p.Second].Pos}
		if _, ok := group[k]; !ok {
			group[k] = len(group)
		}
	}
	out := slices.Clone(pairs)
	slices.SortStableFunc(out, func(p, q FlowPair) int {
		if c := rank(p) - rank(q); c != 0 {
			return c
		}
		gp := group[posPair{t.Events[p.First].Pos, t.Events[p.Second].Pos}]
		gq := group[posPair{t.Events[q.First].Pos, t.Events[q.Second].Pos}]
		if gp != gq {
			return gp - gq
		}
		return p.First - q.First
	})
	return out
}

// fromLoopStart adds, before each pair whose first operation is a later iteration of a loop
// (its goroutine ran the same position before), the pair that delays the loop's first
// iteration instead. The recorded order often puts only the last iteration beside the
// other operation (a buffered channel's k-th send waits for the (k-cap)-th receive), and
// reversing it changes little; holding the loop back from its start lets the other
// operation overtake all of it, which the trace alone cannot show to be possible.
func fromLoopStart(r *Run, pairs []FlowPair, sites map[opSite]siteStat) []FlowPair {
	t := r.Trace
	out := make([]FlowPair, 0, len(pairs))
	added := map[FlowPair]bool{}
	for _, p := range pairs {
		e := &t.Events[p.First]
		if j := sites[opSite{e.G, e.Pos}].first; j != p.First && r.Names.Schedulable(j) && succeeded(&t.Events[j]) {
			if q := (FlowPair{First: j, Second: p.Second}); !added[q] {
				added[q] = true
				out = append(out, q)
			}
		}
		if !added[p] {
			added[p] = true
			out = append(out, p)
		}
	}
	return out
}
