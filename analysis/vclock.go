package analysis

// Vector clocks are plain []uint32 over the dense goroutine index of one trace: entry i is
// the number of events of goroutine i known to have happened before. One slice per
// goroutine and per synchronization object, allocated once; the hot path never allocates.

// join sets dst to the componentwise maximum of dst and src.
func join(dst, src []uint32) {
	src = src[:len(dst)]
	i := 0
	// with many goroutines, vector instructions where the CPU has them (a join of 64
	// entries was 8% of the analysis); the call does not pay for a few entries
	if n := len(dst) &^ 3; n >= joinVectorMin && joinVector(dst, src, n) {
		i = n
	}
	for ; i+4 <= len(dst); i += 4 {
		d, s := dst[i:i+4:i+4], src[i:i+4:i+4]
		d[0] = max(d[0], s[0])
		d[1] = max(d[1], s[1])
		d[2] = max(d[2], s[2])
		d[3] = max(d[3], s[3])
	}
	for ; i < len(dst); i++ {
		dst[i] = max(dst[i], src[i])
	}
}

// joinVectorMin is the clock length from which join uses vector instructions.
const joinVectorMin = 16

// slab hands out vector clocks from large chunks, so that snapshots cost no allocation each.
type slab struct {
	n     int // clock length
	chunk []uint32
}

func (s *slab) alloc() []uint32 {
	if len(s.chunk) < s.n {
		size := s.n * 256
		s.chunk = make([]uint32, size)
	}
	c := s.chunk[:s.n:s.n]
	s.chunk = s.chunk[s.n:]
	return c
}

func (s *slab) clone(src []uint32) []uint32 {
	c := s.alloc()
	copy(c, src)
	return c
}

// published is a clock published by one event (an unlock, a send into a buffer): the
// clock of goroutine owner right after its event with epoch ep. Because clocks are
// vector clocks, a goroutine that already knows (owner, ep) knows everything the clock
// holds, and the join can be skipped: the common case of a goroutine re-acquiring what it
// released itself, or a producer/consumer pair that is already in sync.
type published struct {
	vc, wvc []uint32
	owner   int32
	ep      uint32
}

func (p *published) set(vc, wvc []uint32, owner int32) {
	copy(p.vc, vc)
	if p.wvc != nil {
		copy(p.wvc, wvc)
	}
	p.owner, p.ep = owner, vc[owner]
}

// acquire joins p into goroutine g's clocks (the weak one only if p has one).
func (e *engine) acquire1(g int32, p *published) {
	if p.ep == 0 {
		return
	}
	if e.vc[g][p.owner] < p.ep {
		join(e.vc[g], p.vc)
	}
	if p.wvc != nil && e.wvc[g][p.owner] < p.ep {
		join(e.wvc[g], p.wvc)
	}
}
