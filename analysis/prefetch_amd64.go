package analysis

// prefetch asks the CPU to bring the cache line of s closer without waiting for it.
//
//go:noescape
func prefetch(s *userSlot)
