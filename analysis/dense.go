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
