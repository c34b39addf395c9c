package analysis

// Rule hand-off unlock: a read lock may be released by another goroutine than the one that
// took it (RLock, then hand the work and the duty to RUnlock to a worker through a channel),
// which Go allows. When the releasing goroutine holds no read lock of its own, the release
// is matched to a read acquisition that happens before it (the one handed over: the
// hand-off orders it) rather than to whichever reader came last. Matching the last reader
// paired the worker's RUnlock with a concurrent reader's RLock (a predicted
// unlock-of-unlocked) and then that reader's own RUnlock with the handed-over RLock (a
// second one), though every release in the run is ordered after the lock it releases.
// Only when no held read lock happens before the release is one chosen at random (the
// latest): that release really may run first.
func (e *engine) handoffReader(s *readerSet, g int32) int {
	for j := len(s.list) - 1; j >= 0; j-- {
		if s.list[j].g >= 0 && e.hbAt(s.list[j].ev, g, false) {
			return j
		}
	}
	if s.len() == 0 {
		return -1
	}
	return len(s.list) - 1 // the list ends with a live entry
}
