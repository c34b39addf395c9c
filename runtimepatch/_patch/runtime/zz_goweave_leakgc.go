// Copyright goweave authors. Added to package runtime by the goweave overlay.

//go:build go1.26

// Go 1.26 and later: the GC's goroutine leak detection (goroutineLeakGC; the
// runtime has it without GOEXPERIMENT, which in Go 1.26 only registers the
// pprof profile; standard in Go 1.27) and the goroutine states that came
// with it. Go 1.25: zz_goweave_leakgc_go125.go.

package runtime

// goweaveHasLeakGC: the runtime can prove goroutines leaked.
const goweaveHasLeakGC = true

const (
	goweaveGleaked    = _Gleaked
	goweaveGdeadextra = _Gdeadextra
)

// goweaveLeakGC runs one leak-detection GC cycle if a user goroutine is
// blocked, and reports that blocked goroutines' statuses now say whether they
// leaked (with nobody blocked, "none leaked" holds too).
func goweaveLeakGC() bool {
	if goweaveUserBlocked() {
		goroutineLeakGC()
	}
	return true
}

// goweaveUserBlocked reports whether a user goroutine is blocked on a
// channel or sync primitive: only then can the leak GC find anything, and
// most runs end without one, so they skip its cost (a GC cycle, and starting
// the GC workers in a short process).
func goweaveUserBlocked() bool {
	found := false
	forEachG(func(gp *g) {
		if !found && readgstatus(gp)&^_Gscan == _Gwaiting && !gp.internalBlocked() && !isSystemGoroutine(gp, false) {
			found = true
		}
	})
	return found
}
