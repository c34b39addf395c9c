// Copyright goweave authors. Added to package testing by the goweave overlay.

// goweave hooks of package testing: the uses of a test's T that panic once
// the test has completed, and the test's end (where tRunner marks it done).
// The runtime implements the bodyless functions (push linknames from
// runtime/zz_goweave_testing.go; zz_goweave.s lets them be bodyless).
//
// Under a schedule (a replay confirming a use after the end) a use that
// finds its test completed waits until no ancestor test runs either, and the
// root test waits for such uses before the binary exits: the use then does
// what it does when its goroutine is that slow (Log panics "Log in goroutine
// after TestX has completed" only when no parent test takes the output), and
// the process does not exit under it first.

package testing

import (
	"sync/atomic"
	"time"
	"unsafe"
)

// The method of a TestUse (its record's a field; analysis/trace FORMAT.md).
const (
	goweaveTLog = 1 + iota
	goweaveTLogf
	goweaveTError
	goweaveTErrorf
	goweaveTFatal
	goweaveTFatalf
	goweaveTSkip
	goweaveTSkipf
	goweaveTSkipNow
	goweaveTFail
	goweaveTFailNow
)

// goweaveLateWait bounds both waits: a late use for its ancestors' end, the
// root for late uses to act (each but SkipNow panics, ending the process).
const goweaveLateWait = 2 * time.Second

// goweaveLate counts the uses, held by a schedule, that run after their test
// completed and have not yet acted.
var goweaveLate atomic.Int32

//go:noescape
func goweaveTestUse(id *uint64, method uint8, pc uintptr) (steered bool)

//go:noescape
func goweaveTestEnd(id *uint64, fnPC uintptr)

// goweaveUse is the hook of each method: it records the use at the user's
// call pc.
func goweaveUse(c *common, method uint8, pc uintptr) {
	if !goweaveTestUse(&c.goweaveID, method, pc) {
		return
	}
	c.mu.RLock()
	done := c.done
	c.mu.RUnlock()
	if !done {
		return
	}
	if method == goweaveTSkipNow {
		return // SkipNow after the end only ends its goroutine: nothing to wait for
	}
	goweaveLate.Add(1)
	for start := time.Now(); c.destination() != nil && time.Since(start) < goweaveLateWait; {
		time.Sleep(time.Millisecond)
	}
}

// goweaveEnd records the end of test t, whose function is fn (the entry of
// fn names the test's position); at the root's end it waits for late uses.
func goweaveEnd(t *T, fn func(*T)) {
	var pc uintptr
	if fn != nil {
		pc = **(**uintptr)(unsafe.Pointer(&fn))
	}
	goweaveTestEnd(&t.goweaveID, pc)
	if t.parent == nil {
		for start := time.Now(); goweaveLate.Load() > 0 && time.Since(start) < goweaveLateWait; {
			time.Sleep(time.Millisecond)
		}
	}
}
