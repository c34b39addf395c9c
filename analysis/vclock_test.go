package analysis

import (
	"math/rand"
	"testing"
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
