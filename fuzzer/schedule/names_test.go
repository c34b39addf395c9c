package schedule

import (
	"maps"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
)

// positions used by the hand-built traces: id 1 = testing.go, 2.. = user lines
var testPositions = []trace.Position{
	{File: "/usr/lib/go/src/testing/testing.go", Line: 1997},
	{File: "/m/x_test.go", Line: 10},
	{File: "/m/x_test.go", Line: 20},
	{File: "/m/x_test.go", Line: 20, Column: 9}, // same line, other column: same Pos
}

// spawnTree builds a trace whose goroutine numbers are shifted by off, and whose events of
// different goroutines are interleaved differently depending on off, but whose spawn
// structure is always the same:
//
//	main(1+off) -> test(tRunner), other
//	test -> a, b;  b -> c
func spawnTree(off uint64) (*trace.Trace, map[string]uint64) {
	g := map[string]uint64{"main": 1, "test": 5 + off, "other": 6 + off, "a": 7 + off, "b": 9 + off, "c": 11 + off}
	stamp := uint64(0)
	ev := func(k trace.Kind, gid uint64, pos uint32, a uint64, fl trace.Flags) trace.Event {
		stamp += 1 + off // stamps differ between runs, their order does not
		return trace.Event{Kind: k, G: gid, Pos: pos, A: a, Pre: stamp, Post: stamp, Flags: fl}
	}
	evs := []trace.Event{
		ev(trace.KindGoSpawn, g["main"], 1, g["test"], 0),
		ev(trace.KindGoSpawn, g["main"], 0, g["other"], 0),
		ev(trace.KindGoSpawn, g["test"], 2, g["a"], 0),
		ev(trace.KindGoSpawn, g["test"], 2, g["b"], 0),
		ev(trace.KindLock, g["b"], 3, 0, 0),
		ev(trace.KindUnlock, g["b"], 4, 0, trace.FlagInternal), // not counted
		ev(trace.KindUnlock, g["b"], 4, 0, 0),
		ev(trace.KindGoSpawn, g["b"], 2, g["c"], 0),
		ev(trace.KindGoEnd, g["a"], 0, 0, 0),
		ev(trace.KindLock, g["b"], 3, 0, 0),
	}
	if off%2 == 1 {
		// another slot order: swap two events of different goroutines (a's GoEnd, b's spawn)
		evs[7], evs[8] = evs[8], evs[7]
	}
	for i := range evs {
		evs[i].Index = i
	}
	return &trace.Trace{Meta: map[string]string{}, Events: evs, Positions: testPositions}, g
}

func TestLogicalIDs(t *testing.T) {
	for _, off := range []uint64{0, 1, 100} {
		tr, g := spawnTree(off)
		ids := LogicalIDs(tr)
		want := map[string]GoID{
			"main":  "0",
			"test":  "1",
			"other": "0.2", // the test goroutine used up main's spawn number 1
			"a":     "1.1",
			"b":     "1.2",
			"c":     "1.2.1",
		}
		for name, id := range want {
			if got := ids[g[name]]; got != id {
				t.Errorf("off %d: %s (goid %d) = %q, want %q", off, name, g[name], got, id)
			}
		}
		if len(ids) != len(want) {
			t.Errorf("off %d: %d ids, want %d: %v", off, len(ids), len(want), ids)
		}
	}
}

func TestLogicalIDsMetaOverridesHeuristic(t *testing.T) {
	tr, g := spawnTree(0)
	tr.Meta[MetaTestGoroutine] = "9" // b
	ids := LogicalIDs(tr)
	if ids[g["b"]] != "1" || ids[g["c"]] != "1.1" {
		t.Errorf("with testgoid=b: b=%q c=%q, want 1 and 1.1", ids[g["b"]], ids[g["c"]])
	}
	if ids[g["test"]] != "0.1" || ids[g["a"]] != "0.1.1" {
		t.Errorf("the tRunner goroutine is now an ordinary child of main: test=%q a=%q", ids[g["test"]], ids[g["a"]])
	}
}

func TestLogicalIDsFallbackWithoutTestingSpawn(t *testing.T) {
	tr, g := spawnTree(0)
	tr.Events[0].Pos = 0 // the tRunner spawn position is unknown
	ids := LogicalIDs(tr)
	// the first non-spawn operation is b's Lock; b was spawned at a user position by the
	// goroutine the testing package started: that one is the test goroutine
	if ids[g["test"]] != "1" || ids[g["b"]] != "1.2" {
		t.Errorf("fallback chose %v", ids)
	}
}

func TestOpIDs(t *testing.T) {
	var first map[OpID]bool
	for _, off := range []uint64{0, 1, 100} {
		tr, _ := spawnTree(off)
		n := Name(tr)
		byKind := map[trace.Kind][]OpID{}
		for _, op := range n.Ops {
			if op.Kind != 0 {
				byKind[op.Kind] = append(byKind[op.Kind], op)
			}
		}
		line20 := Pos{"/m/x_test.go", 20}
		// b: Lock@20 (#1), internal Unlock@20 (not counted), Unlock@20:9 (#2, same line), Lock@20 (#3)
		wantLocks := []OpID{{"1.2", trace.KindLock, line20, 1}, {"1.2", trace.KindLock, line20, 3}}
		if got := byKind[trace.KindLock]; len(got) != 2 || got[0] != wantLocks[0] || got[1] != wantLocks[1] {
			t.Errorf("off %d: locks %v, want %v", off, got, wantLocks)
		}
		if got := byKind[trace.KindUnlock]; len(got) != 1 || got[0] != (OpID{"1.2", trace.KindUnlock, line20, 2}) {
			t.Errorf("off %d: unlocks %v", off, got)
		}
		if len(byKind[trace.KindGoEnd]) != 0 {
			t.Errorf("GoEnd got an OpID")
		}
		// The spawn of c by b at line 10 is b's first operation there.
		if i, ok := n.Event(OpID{"1.2", trace.KindGoSpawn, Pos{"/m/x_test.go", 10}, 1}); !ok || tr.Events[i].Kind != trace.KindGoSpawn || tr.Events[i].G != 9+off {
			t.Errorf("off %d: Event lookup of b's spawn = %d, %v", off, i, ok)
		}
		if n.Schedulable(0) {
			t.Error("a spawn is not schedulable")
		}
		all := map[OpID]bool{}
		for _, op := range n.Ops {
			if op.Kind != 0 {
				all[op] = true
			}
		}
		if first == nil {
			first = all
		} else if !maps.Equal(all, first) {
			t.Errorf("off %d: named ops %v, first run had %v", off, all, first)
		}
	}
}

func TestLogicalIDsFallbackWalksUpUserSpawns(t *testing.T) {
	tr, g := spawnTree(0)
	tr.Events[0].Pos = 0 // the tRunner spawn position is unknown, as the runtime records it
	// Only c (spawned by b, spawned by the test goroutine, both at user positions) operates;
	// main's own operations (TestMain) do not count.
	tr.Events = append(tr.Events[:4:4],
		trace.Event{Kind: trace.KindLock, G: g["main"], Pos: 2, Pre: 1, Post: 1},
		trace.Event{Kind: trace.KindGoSpawn, G: g["b"], Pos: 2, A: g["c"], Pre: 30, Post: 30},
		trace.Event{Kind: trace.KindLock, G: g["c"], Pos: 3, Pre: 31, Post: 31})
	ids := LogicalIDs(tr)
	if ids[g["test"]] != "1" || ids[g["c"]] != "1.2.1" {
		t.Errorf("fallback ids %v (goids %v)", ids, g)
	}
}

// Name does not index the operations by name (a map of every event: most of its time on a
// run of millions of operations); Event builds the index when first asked, and finds each
// named operation, concurrent callers alike.
func TestNameIndexesOpsOnDemand(t *testing.T) {
	tr, _ := spawnTree(0)
	n := Name(tr)
	if n.byOp != nil {
		t.Fatalf("Name built the index of %d operations before any Event", len(n.byOp))
	}
	done := make(chan struct{})
	for range 2 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i, op := range n.Ops {
				if op.G == "" {
					continue
				}
				if j, ok := n.Event(op); !ok || n.Ops[j] != op {
					t.Errorf("Event(%v) = %d, %v; want event %d", op, j, ok, i)
				}
			}
		}()
	}
	<-done
	<-done
}
