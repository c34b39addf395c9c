package analysis

import "strconv"

// packageDaemonRule is the rule withoutPackageDaemons applies, shown in every leak kind's doc.
const packageDaemonRule = `A goroutine that does not descend from the test's goroutine (its go statement ran while
the package was initialised, from a package-level variable or an init function, or in
TestMain; for an Example, which runs on the main goroutine, one the main goroutine started
before the example) belongs to the process, not to the test: a package's own daemon (a default
pool's purge loop) that the package can still stop later (its cancel kept in a global).
Its blocked or looping state at the end of a test is reported only when the GC's leak
detection proves it waits on what nothing can reach any more.`

// withoutPackageDaemons drops the leaks of package daemons (packageDaemonRule) that the
// GC's leak detection did not prove.
func (r *Result) withoutPackageDaemons(leaks []leak) []leak {
	var start testStart
	if id, err := strconv.ParseUint(r.Trace.Meta["testgoid"], 10, 64); err == nil && id != mainGoroutineID {
		start.goid = id
	} else if stamp, err := strconv.ParseUint(r.Trace.Meta["examplestart"], 10, 64); err == nil && stamp != 0 {
		start.stamp = stamp
	} else {
		return leaks // when the test started is not known: judge them all
	}
	daemon := map[int32]bool{} // memoized by goroutine
	out := leaks[:0]
	for _, l := range leaks {
		g := r.gOf[l.ev]
		d, ok := daemon[g]
		if !ok {
			d = r.packageDaemon(g, start)
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
// testing.M (and TestMain, and the examples); every test's goroutine descends from it.
const mainGoroutineID = 1

// testStart says where the test began: the goroutine that runs it (a test: META
// testgoid), or, for an example, which runs on the main goroutine, the last stamp issued
// when it started (META examplestart, read by the runtime when testing.runExample started
// the example's output copier): an operation stamped at most that happened before.
type testStart struct {
	goid  uint64
	stamp uint64
}

// packageDaemon reports whether goroutine g was started for the packages, not by the
// test: its parents lead to the main goroutine without passing the test's goroutine or,
// in an example, the main goroutine started its outermost ancestor before the example.
// A parent or spawn the trace does not know ends the walk with false: the goroutine is
// judged as the test's.
func (r *Result) packageDaemon(g int32, start testStart) bool {
	for range len(r.Goroutines) + 1 {
		info := &r.Goroutines[g]
		if info.ID == start.goid {
			return false
		}
		if info.Parent == mainGoroutineID {
			if start.stamp == 0 {
				return true
			}
			return info.Spawn >= 0 && r.Trace.Events[info.Spawn].Pre <= start.stamp
		}
		i, ok := r.gIndex[info.Parent]
		if !ok {
			return false
		}
		g = i
	}
	return false
}
