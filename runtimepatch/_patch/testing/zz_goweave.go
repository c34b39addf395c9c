// Copyright goweave authors. Added to package testing by the goweave overlay.

// goweave hooks of package testing: the uses of a test's T that panic once
// the test has completed, and the test's end (where tRunner marks it done).
// The runtime implements the bodyless functions (push linknames from
// runtime/zz_goweave_testing.go; zz_goweave.s lets them be bodyless).
//
// Under a schedule (a replay confirming a use after the end), a use admitted
// after its test's end does what it does when its goroutine is that slow:
// it waits until the end took effect (tRunner marked the test done) and,
// for the methods that only log, until no parent test takes the output
// either; the root test then waits for such uses before the binary exits,
// so the process does not end under them first. Without a schedule nothing
// waits.

package testing

import (
	"runtime"
	"strings"
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

// goweaveLateWait bounds a late use's waits for its test's (or its
// ancestors') end to take effect, and the root's wait for a late use that
// decided to panic.
const goweaveLateWait = 2 * time.Second

// goweavePending counts the uses under a schedule that have not yet decided
// whether they will panic: each counts itself before the schedule may hold
// it, so the root cannot end while a use the schedule holds past the test's
// end is still on its way (it used to count itself only once admitted, and
// the root, ending first, exited without its panic: "race detected outside
// of test execution", exit 1, a crash). Each decides within its own bounded
// waits and the schedule's bounded holds, so the root waits for them
// without a clock of its own.
var goweavePending atomic.Int32

// goweaveLate counts the late uses under a schedule that decided to panic
// (each but SkipNow panics once its test is done, the logging ones once no
// ancestor runs either).
var goweaveLate atomic.Int32

//go:noescape
func goweaveTestUse(id *uint64, method uint8, pc uintptr, stack []uintptr) (steered bool)

//go:noescape
func goweaveTestEnd(id *uint64, fnPC uintptr)

func goweaveTestSteered() bool

// goweaveUse is the hook of each method: it records the use at the user's
// call pc or, when that is a dependency's frame (testify's assert and
// require) or a helper's, at the first frame of the module under test on
// the caller's stack that is not a helper (the runtime picks it), as go
// test names a helper's failure.
func goweaveUse(c *common, method uint8, pc uintptr) {
	var buf [goweaveFrames]uintptr
	var stack []uintptr
	if f := runtime.FuncForPC(pc - 1); f == nil || !strings.HasPrefix(f.Name(), "testing.") {
		// A method another calls (Error's Fail, Fail's parent's) needs
		// none: the runtime records nothing for a caller in package testing.
		stack = goweaveStack(c, buf[:])
	}
	if !goweaveTestSteered() {
		goweaveTestUse(&c.goweaveID, method, pc, stack)
		return
	}
	goweavePending.Add(1)
	if goweaveLateUse(c, method, pc, stack) {
		goweaveLate.Add(1)
	}
	goweavePending.Add(-1)
}

// goweaveFrames bounds the caller's stack passed to the runtime (testing's
// own walk for a helper's caller stops at 50 frames).
const goweaveFrames = 64

// goweaveStack fills buf with the frames above the method's caller (the
// method's caller first), less the functions marked t.Helper() on c or an
// ancestor (a synctest bubble's T marks its parent's).
func goweaveStack(c *common, buf []uintptr) []uintptr {
	// Callers, goweaveStack, goweaveUse, the method: logical frames, so
	// that inlining does not move the count; wrappers are elided.
	stack := buf[:runtime.Callers(4, buf)]
	var helpers map[string]struct{}
	for p := c; p != nil; p = p.parent {
		p.mu.RLock()
		for pc := range p.helperPCs {
			if helpers == nil {
				helpers = make(map[string]struct{})
			}
			helpers[pcToName(pc)] = struct{}{}
		}
		p.mu.RUnlock()
	}
	if helpers == nil {
		return stack
	}
	out := stack[:0]
	for _, pc := range stack {
		if _, ok := helpers[pcToName(pc)]; !ok {
			out = append(out, pc)
		}
	}
	return out
}

// goweaveLateUse records the use under a schedule and, when the schedule
// admitted it after its test's end, waits for the end to take effect; it
// reports whether the use will panic.
func goweaveLateUse(c *common, method uint8, pc uintptr, stack []uintptr) bool {
	if !goweaveTestUse(&c.goweaveID, method, pc, stack) || !c.goweaveEnded.Load() || method == goweaveTSkipNow {
		return false
	}
	done := goweaveWait(func() bool {
		c.mu.RLock()
		defer c.mu.RUnlock()
		return c.done
	})
	switch method {
	case goweaveTLog, goweaveTLogf, goweaveTSkip, goweaveTSkipf:
		// They log into the nearest running ancestor and panic only when
		// there is none.
		done = done && goweaveWait(func() bool { return c.destination() == nil })
	}
	return done
}

// goweaveWait polls done until it holds or goweaveLateWait passed.
func goweaveWait(done func() bool) bool {
	for start := time.Now(); !done(); time.Sleep(time.Millisecond) {
		if time.Since(start) > goweaveLateWait {
			return false
		}
	}
	return true
}

// goweaveEnd records the end of test t, whose function is fn (the entry of
// fn names the test's position), before tRunner marks it done.
func goweaveEnd(t *T, fn func(*T)) {
	var pc uintptr
	if fn != nil {
		pc = **(**uintptr)(unsafe.Pointer(&fn))
	}
	goweaveTestEnd(&t.goweaveID, pc)
	t.goweaveEnded.Store(true)
}

// goweaveDone runs after tRunner marked t done: the root test waits for the
// uses still deciding, then for the late ones to panic.
func goweaveDone(t *T) {
	if t.parent != nil {
		return
	}
	for goweavePending.Load() > 0 {
		time.Sleep(time.Millisecond)
	}
	if goweaveLate.Load() > 0 {
		goweaveWait(func() bool { return false }) // the panic ends the process
	}
}
