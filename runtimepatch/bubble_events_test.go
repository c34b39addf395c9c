package runtimepatch

import (
	"testing"

	"github.com/goweave/goweave/analysis/trace"
)

// TestBubbleSpawnEvents: a GoSpawn names the synctest bubble its child runs in
// (b), the same for the goroutines of one bubble, up to the bubble's main
// goroutine, and another for the next bubble (analysis/leak_bubble.go relies on it).
func TestBubbleSpawnEvents(t *testing.T) {
	tr := record(t, buildEvents(t, false), "TestBubbleSpawn", nil).tr
	if out := one(t, tr, trace.KindGoSpawn, "bubble.outside"); out.B != 0 {
		t.Errorf("spawn outside a bubble: bubble %d, want 0", out.B)
	}
	in := at(t, tr, trace.KindGoSpawn, "bubble.inside")
	if len(in) != 2 {
		t.Fatalf("%d spawns at @bubble.inside, want 2\n%s", len(in), dump(tr))
	}
	if in[0].B == 0 || in[1].B == 0 || in[0].B == in[1].B {
		t.Errorf("bubbles of the two spawns: %d and %d, want two ids other than 0", in[0].B, in[1].B)
	}
	spawnOf := map[uint64]trace.Event{}
	for _, e := range tr.Events {
		if e.Kind == trace.KindGoSpawn {
			spawnOf[e.A] = e
		}
	}
	for _, e := range in {
		// the spawner's ancestors back to the one outside the bubble (the test's goroutine)
		g, hops := e.G, 0
		for ; ; hops++ {
			s, ok := spawnOf[g]
			if !ok || s.B == 0 {
				break
			}
			if s.B != e.B {
				t.Errorf("goroutine %d of bubble %d was spawned in bubble %d", g, e.B, s.B)
			}
			g = s.G
		}
		if hops == 0 {
			t.Errorf("the goroutine that spawned at @bubble.inside (g%d) is not in the bubble\n%s", e.G, dump(tr))
		}
	}
}
