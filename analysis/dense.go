package analysis

import "slices"

// denseIndex maps the keys below limit (small counters in practice: goroutine and object
// ids) to nonzero int32 values, 0 meaning absent. Its table grows with the largest key
// set so far instead of spanning the whole range from the start: a short trace does not
// pay for a table sized for the worst case.
type denseIndex struct {
	table []int32
	limit uint64
}

// covers reports whether key k belongs to the index (the caller keeps the others elsewhere).
func (d *denseIndex) covers(k uint64) bool { return k < d.limit }

func (d *denseIndex) get(k uint64) int32 {
	if k < uint64(len(d.table)) {
		return d.table[k]
	}
	return 0
}

// set stores v for k, which must be covered.
func (d *denseIndex) set(k uint64, v int32) {
	if k >= uint64(len(d.table)) {
		n := min(max(2*uint64(len(d.table)), k+1, 1024), d.limit)
		d.table = slices.Grow(d.table, int(n)-len(d.table))[:n]
	}
	d.table[k] = v
}

// appendDoubling appends v to s, at least doubling the capacity when s is full. For the
// long lists built here one element at a time, append's growth by a quarter would allocate
// about five times the final size in all; doubling allocates twice.
func appendDoubling[T any](s []T, v T) []T {
	if len(s) == cap(s) {
		s = slices.Grow(s, len(s))
	}
	return append(s, v)
}

// chunked is a list that grows by chunks of chunkN elements instead of by copying, for
// the states of objects a trace makes by the thousand (WaitGroups: one per fan-out):
// doubling copied every state again, pointers and write barriers included (3% of
// BenchmarkAnalyze1M). The first chunk grows from a few elements, so that a trace with a
// handful of objects does not pay for a whole chunk.
type chunked[T any] struct {
	chunks [][]T
	n      int32
}

const (
	chunkBits = 10
	chunkN    = 1 << chunkBits
)

// add appends v and returns its index.
func (c *chunked[T]) add(v T) int32 {
	x := c.n
	k := int(x >> chunkBits)
	if k == len(c.chunks) {
		size := chunkN
		if k == 0 {
			size = 4
		}
		c.chunks = append(c.chunks, make([]T, 0, size))
	}
	c.chunks[k] = appendDoubling(c.chunks[k], v) // (only the first chunk is ever full)
	c.n++
	return x
}

// at returns element x (x < len).
func (c *chunked[T]) at(x int32) *T { return &c.chunks[x>>chunkBits][x&(chunkN-1)] }

func (c *chunked[T]) len() int32 { return c.n }
