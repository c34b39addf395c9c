// Package leakgc holds small programs that separate true goroutine leaks (a
// goroutine blocked on a primitive no live goroutine can reach) from lingering
// goroutines (blocked, but on something a live goroutine or a global still
// references). runtimepatch's leakgc_test.go runs each test in its own process
// and compares the verdicts of Go 1.26's GC-based leak detector
// (GOEXPERIMENT=goroutineleakprofile) and of goweave's analysis; the expected
// verdicts are in the test names: TestLeak* leak, TestLinger* do not.
package leakgc
