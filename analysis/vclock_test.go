package analysis

import (
	"fmt"
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

// The in-place exchange of one-leaf clocks (exchangeLeaves) must leave both clocks as the
// general exchange does (taken when a leaf is shared), in each of its four cases.
func TestExchangeLeavesMatchesGeneralPath(t *testing.T) {
	for _, ng := range []int{2, 5, 64} {
		e := &engine{ck: newClockArena(ng)}
		rng := rand.New(rand.NewSource(int64(ng)))
		build := func(own int32, vals []uint32, ownEp uint32) vclock {
			c := e.ck.clock(own)
			for k, v := range vals {
				if int32(k) != own {
					e.ck.set(&c, int32(k), v)
				}
			}
			c.ownEp = ownEp
			return c
		}
		cases := map[[2]bool]int{}
		for round := range 4000 {
			ga := int32(rng.Intn(ng))
			gb := int32(rng.Intn(ng - 1))
			if gb >= ga {
				gb++
			}
			va, vb := make([]uint32, ng), make([]uint32, ng)
			for k := range va {
				va[k], vb[k] = uint32(rng.Intn(6)), uint32(rng.Intn(6))
			}
			epA, epB := uint32(3+rng.Intn(4)), uint32(3+rng.Intn(4))
			fastA, fastB := build(ga, va, epA), build(gb, vb, epB)
			slowA, slowB := build(ga, va, epA), build(gb, vb, epB)
			if fastA.root == nil || fastB.root == nil {
				continue
			}
			keepA, keepB := e.snapshot(&slowA), e.snapshot(&slowB) // shared: the general path
			cases[[2]bool{fastA.tree(gb)+1 >= epB, fastB.tree(ga)+1 >= epA}]++
			if al, _ := e.ck.soleLeaves(&fastA, &fastB); al == nil {
				t.Fatalf("ng %d: sole leaves not taken for the fast path", ng)
			}
			if al, _ := e.ck.soleLeaves(&slowA, &slowB); al != nil {
				t.Fatalf("ng %d: shared leaves taken for the fast path", ng)
			}
			e.exchange(&fastA, &fastB)
			e.exchange(&slowA, &slowB)
			for k := int32(0); k < int32(ng); k++ {
				if fastA.get(k) != slowA.get(k) || fastB.get(k) != slowB.get(k) {
					t.Fatalf("ng %d round %d: entry %d: in place a %d b %d, general a %d b %d", ng, round, k,
						fastA.get(k), fastB.get(k), slowA.get(k), slowB.get(k))
				}
			}
			for _, c := range []*vclock{&fastA, &fastB, &slowA, &slowB, &keepA, &keepB} {
				e.ck.drop(c, -1)
			}
		}
		if len(cases) != 4 {
			t.Errorf("ng %d: only %d of the 4 cases (who knows whom) were exercised: %v", ng, len(cases), cases)
		}
	}
}

// The vector comparison of leaves answers what the entrywise one does, whichever entry
// differs (each lane of each quad) and in either direction.
func TestCompareLeavesVector(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var d, s [leafN]uint32
	for i := range d {
		d[i] = uint32(rng.Intn(1 << 20))
	}
	check := func(what string) {
		var gt, lt bool
		for i := range d {
			gt, lt = gt || s[i] > d[i], lt || s[i] < d[i]
		}
		if g, l, ok := compareVector(&d, &s); ok && (g != gt || l != lt) {
			t.Fatalf("%s: compareVector = %v, %v; want %v, %v", what, g, l, gt, lt)
		}
		if g, l := compareLeaves(&d, &s); g != gt || l != lt {
			t.Fatalf("%s: compareLeaves = %v, %v; want %v, %v", what, g, l, gt, lt)
		}
	}
	s = d
	check("equal")
	for k := range leafN {
		s = d
		s[k]++
		check(fmt.Sprintf("entry %d greater", k))
		s[k] -= 2
		check(fmt.Sprintf("entry %d smaller", k))
		s[(k+17)%leafN] += 5
		check(fmt.Sprintf("entry %d smaller, %d greater", k, (k+17)%leafN))
		s[k] = 1 << 31 // unsigned: above every entry
		check(fmt.Sprintf("entry %d at 1<<31", k))
	}
}
