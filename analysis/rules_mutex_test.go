package analysis

import (
	"math/rand"
	"slices"
	"testing"
)

// byGoroutine answers like a map whether it searches gs or has its table, keeps gs sorted,
// and counts the bytes it adds (the table once, when it is made).
func TestByGoroutineMatchesMap(t *testing.T) {
	for _, ng := range []int{1, 5, 64, 1000} {
		rng := rand.New(rand.NewSource(int64(ng)))
		var b byGoroutine[int]
		want := map[int32]int{}
		var bytes int64
		for n := 0; n < 4*ng; n++ {
			g := int32(rng.Intn(ng))
			_, had := want[g]
			added := b.set(g, n, ng)
			want[g] = n
			switch {
			case had && added != 0:
				t.Fatalf("ng %d: set of a known goroutine added %d bytes", ng, added)
			case !had && added < 12:
				t.Fatalf("ng %d: set of a new goroutine added %d bytes", ng, added)
			}
			bytes += added
			for h := int32(0); h < int32(ng); h++ {
				v, ok := b.get(h)
				if w, wok := want[h]; ok != wok || v != w {
					t.Fatalf("ng %d after %d sets: get(%d) = %d, %v; want %d, %v", ng, n+1, h, v, ok, w, wok)
				}
			}
			if !slices.IsSorted(b.gs) || len(b.gs) != len(want) {
				t.Fatalf("ng %d: gs %v not the sorted %d goroutines", ng, b.gs, len(want))
			}
		}
		if b.at == nil {
			t.Errorf("ng %d: every goroutine used it, yet no table", ng)
		}
		if max := int64(len(b.gs))*(12+64) + 64; bytes > max {
			t.Errorf("ng %d: %d bytes for %d goroutines (more than %d)", ng, bytes, len(b.gs), max)
		}
	}
}
