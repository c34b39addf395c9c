package analysis

import "strconv"

// packageDaemonRule is the rule withoutPackageDaemons applies, shown in every leak kind's doc.
const packageDaemonRule = `A goroutine that does not descend from the test's goroutine (its go statement ran while
the package was initialised, from a package-level variable or an init function, or in
TestMain) belongs to the process, not to the test: a package's own daemon (a default
pool's purge loop) that the package can still stop later (its cancel kept in a global).
Its blocked or looping state at the end of a test is reported only when the GC's leak
detection proves it waits on what nothing can reach any more.`

// withoutPackageDaemons drops the leaks of package daemons (packageDaemonRule) that the
// GC's leak detection did not prove.
func (r *Result) withoutPackageDaemons(leaks []leak) []leak {
	testID, err := strconv.ParseUint(r.Trace.Meta["testgoid"], 10, 64)
	if err != nil || testID == mainGoroutineID {
		return leaks // which goroutine ran the test is not known: judge them all
	}
	daemon := map[int32]bool{} // memoized by goroutine
	out := leaks[:0]
	for _, l := range leaks {
		g := r.gOf[l.ev]
		d, ok := daemon[g]
		if !ok {
			d = r.packageDaemon(g, testID)
			daemon[g] = d
		}
		if d && !l.proven && !l.timeLimit {
			continue
		}
		out = append(out, l)
	}
	return out
}

// mainGoroutineID is the goid of the goroutine that initialises the packages and runs
// testing.M (and TestMain); every test's goroutine descends from it.
const mainGoroutineID = 1

// packageDaemon reports whether goroutine g's parents lead to the main goroutine without
// passing the test's goroutine testID. A parent the trace does not know ends the walk
// with false: the goroutine is judged as the test's.
func (r *Result) packageDaemon(g int32, testID uint64) bool {
	id := r.Goroutines[g].ID
	for range len(r.Goroutines) + 1 {
		switch id {
		case testID:
			return false
		case mainGoroutineID:
			return true
		}
		i, ok := r.gIndex[id]
		if !ok {
			return false
		}
		id = r.Goroutines[i].Parent
	}
	return false
}
