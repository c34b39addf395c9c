package analysis

// prefetch asks the CPU to bring the cache lines of the first n slots closer, without
// waiting for them.
//
//go:noescape
func prefetch(slots *[prefetchBatch]*userSlot, n int)
