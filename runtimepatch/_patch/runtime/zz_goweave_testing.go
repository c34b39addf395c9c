// Copyright goweave authors. Added to package runtime by the goweave overlay.

// goweave's view of package testing (_patch/testing/zz_goweave.go): a use
// of a test's T that panics after the test completed ("Log in goroutine
// after TestX has completed", "Fail in goroutine after ...") is a TestUse
// at the user's call; the test's end is a TestEnd on the test's goroutine,
// recorded where tRunner marks the test done (after its cleanups, and after
// its parallel subtests). The analysis reports a use not ordered before its
// test's end, and a FailNow or SkipNow from another goroutine.

package runtime

import _ "unsafe" // go:linkname

// Event kinds (analysis/trace FORMAT.md).
const (
	goweaveKTestUse = 70
	goweaveKTestEnd = 71
)

// goweaveTestUse records a use; steered reports that a schedule runs (the
// use passed it), so that package testing lets a use the schedule held
// past its test's end run as late as the schedule meant (zz_goweave.go).
//
//go:linkname goweaveTestUse testing.goweaveTestUse
func goweaveTestUse(id *uint64, method uint8, pc uintptr, stack []uintptr) (steered bool) {
	if !goweaveOn {
		return false
	}
	pos := goweaveTestPos(pc, stack)
	if pos == 0 {
		return false
	}
	gp := getg()
	goweaveBefore(gp, goweaveKTestUse, pos) // a schedule may hold it past the test's end
	goweaveTestPoint(gp, goweaveKTestUse, goweaveFieldID(id), pos, uint64(method))
	return goweaveSchedOn
}

// goweaveTestPos is the position of a use called at return address pc:
// none when pc is package testing itself (Error's Fail, tRunner's) or the
// rest of the standard library; else the first frame of the module under
// test on stack, the caller's frames from pc's up less the t.Helper()
// functions, past dependencies (testify's assert and require) and
// wrappers, as go test names a helper's failure; on a goroutine a
// dependency started, with no such frame, the position its spawn was
// attributed to. The use is the user's own (not a library's internal
// operation): a schedule may hold it.
func goweaveTestPos(pc uintptr, stack []uintptr) uint32 {
	switch goweaveLookup(pc) {
	case goweaveNotUser, goweaveOpaque:
		return 0
	}
	for _, p := range stack {
		switch v := goweaveLookup(p); v {
		case goweaveNotUser, goweaveWrapper, goweaveLib, goweaveReflectEntry:
		case goweaveOpaque:
			// Standard code between the helper and the module (a
			// dependency's cleanup run by tRunner): not the user's.
			return 0
		default:
			return v
		}
	}
	if cur := getg().m.curg; cur != nil {
		return cur.goweave.spawnPos
	}
	return 0
}

// goweaveTestSteered reports whether a schedule runs: package testing then
// counts each use before it can be held here, so that the root test waits
// for it (zz_goweave.go).
//
//go:linkname goweaveTestSteered testing.goweaveTestSteered
func goweaveTestSteered() bool { return goweaveOn && goweaveSchedOn }

//go:linkname goweaveTestEnd testing.goweaveTestEnd
func goweaveTestEnd(id *uint64, fnPC uintptr) {
	if !goweaveOn || fnPC == 0 {
		return
	}
	// fnPC+1 is never a return address (no call instruction is one byte
	// long, and arm64's are aligned), so its cache entry is the test
	// function's own: the position of its first line. The root test of the
	// binary and tests of other packages are not user code: not recorded.
	pos := goweavePosOf(fnPC + 1)
	if pos == 0 {
		return
	}
	gp := getg()
	goweaveBefore(gp, goweaveKTestEnd, pos)
	goweaveTestPoint(gp, goweaveKTestEnd, goweaveFieldID(id), pos, 0)
}

// goweaveTestPoint writes a completed one-stamp record.
func goweaveTestPoint(gp *g, kind uint8, obj uint64, pos uint32, a uint64) {
	h := goweaveOpen(gp, kind, 0, pos, obj)
	if h == 0 {
		return
	}
	e := goweaveRec(h)
	e.a = a
	e.post = e.pre
}
