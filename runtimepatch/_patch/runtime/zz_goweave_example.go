// Copyright goweave authors. Added to package runtime by the goweave overlay.

// goweave's mark of an Example's start. go test runs an Example on the main
// goroutine, not on a goroutine of its own (tRunner), so no spawn names the
// test goroutine. testing.runExample starts one goroutine just before it
// calls the example, the copier of its standard output (run_example.go, the
// same from go1.25 to go1.27): the last stamp issued before that spawn (META
// examplestart) splits what the main goroutine started for the packages
// (package-level variables, init functions, TestMain) from what the example
// started (analysis: packageDaemon).

package runtime

import "internal/runtime/atomic"

// goweaveExampleStart is the stamp when the example's output copier was
// spawned; 0 until then (and in a run of a test, not an example).
var goweaveExampleStart atomic.Uint64

// goweaveNoteExample notes the example's start when child is
// runExample's output copier. Runs in newproc before child runs.
func goweaveNoteExample(child *g) {
	if goweaveExampleStart.Load() != 0 || goweaveTestGoid.Load() != 0 {
		return
	}
	f := findfunc(child.startpc)
	if !f.valid() || funcname(f) != "testing.runExample.func1" {
		return
	}
	_, stamp := goweaveLoadCounts()
	goweaveExampleStart.CompareAndSwap(0, stamp)
}

// goweaveMetaExample writes META examplestart when an example ran.
func goweaveMetaExample() {
	if s := goweaveExampleStart.Load(); s != 0 {
		goweaveMetaKey("examplestart")
		goweaveMetaInt(s)
	}
}
