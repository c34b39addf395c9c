//go:build !amd64

package analysis

// prefetch is a no-op where no prefetch instruction is wired up.
func prefetch(*[prefetchBatch]*userSlot, int) {}
