package analysis

import (
	"math/rand"
	"testing"
	"unsafe"
)

// join must equal the entrywise maximum for every length (the vector path covers multiples
// of 4 from joinVectorMin, the loop the rest) and every magnitude (unsigned compare).
func TestJoinIsEntrywiseMax(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for n := 0; n <= 3*joinVectorMin+7; n++ {
		for round := 0; round < 20; round++ {
			dst, src := make([]uint32, n), make([]uint32, n+round%3) // src may be longer
			for i := range dst {
				dst[i] = rng.Uint32() >> (rng.Intn(4) * 10)
			}
			for i := range src {
				src[i] = rng.Uint32() >> (rng.Intn(4) * 10)
			}
			want := make([]uint32, n)
			for i := range want {
				want[i] = max(dst[i], src[i])
			}
			join(dst, src)
			for i := range want {
				if dst[i] != want[i] {
					t.Fatalf("n=%d: join[%d] = %d, want %d", n, i, dst[i], want[i])
				}
			}
		}
	}
}

// The tree clocks must answer like dense vectors under any sequence of the engine's
// operations (copies that share, joins, sets, raises, releases), for one-leaf trees and
// for trees of two and three levels, whatever is shared with what.
func TestTreeClocksMatchDenseVectors(t *testing.T) {
	for _, ng := range []int{5, 64, 65, 3000, 70_000} {
		a := newClockArena(ng)
		rng := rand.New(rand.NewSource(int64(ng)))
		const n = 12
		cs := make([]vclock, n)
		dense := make([][]uint32, n)
		for i := range cs {
			own := int32(-1)
			if i%2 == 0 {
				own = int32(rng.Intn(ng))
			}
			cs[i] = a.clock(own)
			dense[i] = make([]uint32, ng)
		}
		// entries are drawn from a few goroutines, so that clocks share leaves and paths
		hot := make([]int32, 40)
		for i := range hot {
			hot[i] = int32(rng.Intn(ng))
		}
		entry := func() int32 { return hot[rng.Intn(len(hot))] }
		for step := range 20000 {
			i, j := rng.Intn(n), rng.Intn(n)
			d, s := &cs[i], &cs[j]
			switch op := rng.Intn(10); {
			case op < 3:
				k, v := entry(), uint32(rng.Intn(1000))
				a.raise(d, k, v)
				dense[i][k] = max(dense[i][k], v)
			case op < 4: // (the engine sets only other goroutines' entries)
				k, v := entry(), uint32(rng.Intn(1000))
				if k == d.own {
					continue
				}
				a.set(d, k, v)
				dense[i][k] = v
			case op < 7:
				a.join(d, s)
				join(dense[i], dense[j])
			case op < 9:
				a.assign(d, s)
				copy(dense[i], dense[j])
			default:
				a.drop(d, d.own)
				clear(dense[i])
			}
			if d.own >= 0 {
				dense[i][d.own] = d.ownEp // (the own entry moves with the clock's goroutine)
			}
			for c := range cs {
				for _, k := range hot {
					if got, want := cs[c].get(k), dense[c][k]; got != want {
						t.Fatalf("ng %d step %d: clock %d entry %d = %d, want %d", ng, step, c, k, got, want)
					}
				}
			}
		}
		// every node still referenced is counted right: releasing every clock recycles all
		for c := range cs {
			a.drop(&cs[c], -1)
		}
		leafSize, innerSize := int64(unsafe.Sizeof(leaf{})), int64(unsafe.Sizeof(inner{}))
		live := a.bytes - int64(len(a.freeLeaves)+len(a.leafChunk))*leafSize - int64(len(a.freeInners)+len(a.innerChunk))*innerSize
		if live != 0 {
			t.Errorf("ng %d: %d bytes of nodes still referenced after every clock was dropped", ng, live)
		}
	}
}
