package analysis

// Vector clocks are plain []uint32 over the dense goroutine index of one trace: entry i is
// the number of events of goroutine i known to have happened before. One slice per
// goroutine and per synchronization object, allocated once; the hot path never allocates.

// join sets dst to the componentwise maximum of dst and src.
func join(dst, src []uint32) {
	src = src[:len(dst)]
	for i, v := range src {
		if v > dst[i] {
			dst[i] = v
		}
	}
}

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
