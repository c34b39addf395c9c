package schedule

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/goweave/goweave/analysis/trace"
)

// MetaTestGoroutine is the trace META key under which the runtime records the goid of the test
// goroutine (logical id "1"). Without it LogicalIDs falls back to a heuristic.
const MetaTestGoroutine = "testgoid"

// Names holds the run-independent names of one trace's goroutines and operations.
type Names struct {
	// IDs maps a goid to its logical id; goroutines without one are absent.
	IDs map[uint64]GoID
	// Ops[i] names t.Events[i]. Events that are not counted as occurrences (GoEnd and internal
	// events) have the zero OpID; events of goroutines without a logical id have an empty G.
	Ops []OpID

	// byOp indexes Ops, built on the first Event: only pinning a run's order looks an
	// operation up by name, and on a run of millions of operations the index took most of
	// Name's time (a 600k-event run: 3 of the 4 s Name took, under load), for every run.
	byOpOnce sync.Once
	byOp     map[OpID]int
}

// Name computes the logical ids and OpIDs of t.
func Name(t *trace.Trace) *Names {
	n := &Names{IDs: LogicalIDs(t)}
	n.Ops = opIDs(t, n.IDs)
	return n
}

// Event returns the index of the event named op, if the trace has it.
func (n *Names) Event(op OpID) (int, bool) {
	n.byOpOnce.Do(func() {
		n.byOp = make(map[OpID]int, len(n.Ops))
		for i, op := range n.Ops {
			if op.G != "" {
				n.byOp[op] = i
			}
		}
	})
	i, ok := n.byOp[op]
	return i, ok
}

// Schedulable reports whether event i can appear in a schedule: it is of an orderable kind,
// counted, and its goroutine has a logical id.
func (n *Names) Schedulable(i int) bool {
	op := n.Ops[i]
	return op.G != "" && op.Pos.File != "" && Orderable(op.Kind)
}

// Pinnable reports whether event i can be named by an order that pins atomics: Schedulable,
// or an atomic operation of a goroutine with a logical id.
func (n *Names) Pinnable(i int) bool {
	op := n.Ops[i]
	return op.G != "" && op.Pos.File != "" && Nameable(op.Kind)
}

// LogicalIDs computes every goroutine's logical id from the trace's GoSpawn events (FORMAT.md,
// "Logical goroutine ids"). The test goroutine is the one named by the META key "testgoid";
// without it, the child of the first spawn made at a position in testing/testing.go; failing
// that, the goroutine of the first recorded non-spawn operation.
func LogicalIDs(t *trace.Trace) map[uint64]GoID {
	children := make(map[uint64][]int) // parent goid -> its GoSpawn events in program order
	parentOf := make(map[uint64]uint64)
	var spawns []int
	for i := range t.Events {
		e := &t.Events[i]
		if e.Kind != trace.KindGoSpawn {
			continue
		}
		spawns = append(spawns, i)
		if _, dup := parentOf[e.A]; !dup {
			parentOf[e.A] = e.G
		}
	}
	slices.SortStableFunc(spawns, func(a, b int) int { return cmpU64(t.Events[a].Pre, t.Events[b].Pre) })
	for _, i := range spawns {
		e := &t.Events[i]
		children[e.G] = append(children[e.G], i)
	}

	// The main goroutine: the smallest goid that was never spawned (goid 0 is no goroutine).
	var main uint64
	consider := func(g uint64) {
		if _, spawned := parentOf[g]; g != 0 && !spawned && (main == 0 || g < main) {
			main = g
		}
	}
	for g := range children {
		consider(g)
	}
	for i := range t.Events {
		consider(t.Events[i].G)
	}
	for _, g := range t.Goroutines {
		consider(g.ID)
	}

	test := testGoroutine(t, spawns, main)
	ids := make(map[uint64]GoID)
	var walk func(g uint64, id GoID, depth int)
	walk = func(g uint64, id GoID, depth int) {
		if _, done := ids[g]; done || depth > maxGoIDDepth {
			return
		}
		ids[g] = id
		for k, i := range children[g] {
			child := t.Events[i].A
			if child == test {
				continue // named "1", but it still used up spawn number k+1
			}
			walk(child, id.Child(k+1), depth+1)
		}
	}
	if test != 0 {
		walk(test, TestGoroutine, 1)
	}
	if main != 0 {
		walk(main, MainGoroutine, 1)
	}
	return ids
}

func testGoroutine(t *trace.Trace, spawns []int, main uint64) uint64 {
	if v, ok := t.Meta[MetaTestGoroutine]; ok {
		if g, err := strconv.ParseUint(v, 10, 64); err == nil && g != 0 {
			return g
		}
	}
	spawnOf := make(map[uint64]*trace.Event, len(spawns))
	for _, i := range spawns {
		e := &t.Events[i]
		if spawnOf[e.A] == nil {
			spawnOf[e.A] = e
		}
		f := t.Position(e.Pos).File
		if f == "testing/testing.go" || strings.HasSuffix(f, "/testing/testing.go") {
			return e.A
		}
	}
	// The goroutine of the first operation outside the main goroutine (which runs init and
	// TestMain), walked up through the goroutines user code spawned (known spawn position) to
	// the one the testing package started (its spawn has no user position).
	first := -1
	for i := range t.Events {
		e := &t.Events[i]
		if e.Kind == trace.KindGoSpawn || e.Kind == trace.KindGoEnd || e.Pos == 0 || e.G == main {
			continue
		}
		if first < 0 || e.Pre < t.Events[first].Pre {
			first = i
		}
	}
	if first < 0 {
		return 0
	}
	g := t.Events[first].G
	for range maxGoIDDepth * 4 {
		s := spawnOf[g]
		if s == nil || s.Pos == 0 || s.G == main || s.G == 0 {
			break
		}
		g = s.G
	}
	return g
}

// Counted reports whether e counts as an occurrence at its position (FORMAT.md: every event
// except SelectCase, GoEnd and internal events; empty slots, kind 0, are no events).
func Counted(e *trace.Event) bool {
	return e.Kind != 0 && e.Kind != trace.KindGoEnd && e.Kind != trace.KindSelectCase && !e.Flags.Has(trace.FlagInternal)
}

func opIDs(t *trace.Trace, ids map[uint64]GoID) []OpID {
	order := make([]int, len(t.Events))
	for i := range order {
		order[i] = i
	}
	// Program order within a goroutine is request order.
	slices.SortStableFunc(order, func(a, b int) int { return cmpU64(t.Events[a].Pre, t.Events[b].Pre) })
	type key struct {
		g    uint64
		file string
		line int
	}
	count := make(map[key]int)
	ops := make([]OpID, len(t.Events))
	for _, i := range order {
		e := &t.Events[i]
		if !Counted(e) {
			continue
		}
		p := t.Position(e.Pos)
		k := key{e.G, p.File, p.Line}
		count[k]++
		ops[i] = OpID{G: ids[e.G], Kind: e.Kind, Pos: Pos{File: p.File, Line: p.Line}, N: count[k]}
	}
	return ops
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
