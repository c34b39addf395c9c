package analysis

import "github.com/goweave/goweave/analysis/trace"

// Rule library-owned pairs: an operation made by a library on the user's behalf (a
// dependency outside the module, or the standard library's context, io, time and sync
// helpers) is recorded with the internal flag at the user's call into the library, or, on a
// goroutine the library started, at the call that started it. A finding between such
// operations names user lines, but the user's code performed neither operation. When
//
//   - every operation of the finding is a library's, and
//   - they are all attributed to one user position (the user's code shows one call, and the
//     finding would have both ends on that line), or one of them ran on a goroutine the
//     library started (its own worker, which no user code runs on),
//
// the pair is the library's own protocol: a channel it makes and closes as a signal, a lock
// it takes in its own goroutines. Nothing in the user's code orders or reorders it, and the
// same finding shows at a fixed commit of the user's module as at a buggy one, so it is
// dropped. A bug of the library that fails the test still shows as the test's failure or
// panic (flaky-panic, with the library's stack). Operations of the library attributed to
// different user calls, on the user's own goroutines (two goroutines calling Close), are
// kept: those calls are where the user can act.
//
// The rule applies to the two-sided kinds; a leak or a stuck run is one goroutine's state
// and stays reported (the leak detectors say whose it is).
var libraryPairKinds = map[string]bool{
	"send-on-closed": true, "recv-on-closed": true, "close-of-closed": true, "concurrent-recv": true,
	"negative-waitgroup": true, "unlock-of-unlocked": true, "data-race": true,
}

// libraryOwned reports whether a finding of kind with confidence conf over ops is a
// library's own pair (above). Predicted lock cycles count too; an actual one is a stuck run
// the test shows.
func (r *Result) libraryOwned(kind string, conf Confidence, ops []op) bool {
	if !libraryPairKinds[kind] && !(conf == Predicted && (kind == "cyclic-deadlock" || kind == "mixed-deadlock")) {
		return false
	}
	n, pos, onePos, libGoroutine := 0, uint32(0), true, false
	for _, o := range ops {
		if o.ev < 0 {
			continue
		}
		ev := &r.Trace.Events[o.ev]
		if !ev.Flags.Has(trace.FlagInternal) {
			return false
		}
		if n > 0 && !r.samePos(ev.Pos, pos) {
			onePos = false
		}
		n++
		pos = ev.Pos
		libGoroutine = libGoroutine || r.libraryGoroutine(r.gOf[o.ev])
	}
	return n >= 2 && (onePos || libGoroutine)
}

// samePos reports whether two position ids name one source line.
func (r *Result) samePos(a, b uint32) bool {
	if a == b {
		return true
	}
	pa, pb := r.Trace.Position(a), r.Trace.Position(b)
	return pa.File != "" && pa.File == pb.File && pa.Line == pb.Line
}

// libraryGoroutine reports whether goroutine g (dense index) was started by a library: its
// spawn was recorded with the internal flag.
func (r *Result) libraryGoroutine(g int32) bool {
	if g < 0 || int(g) >= len(r.Goroutines) {
		return false
	}
	s := r.Goroutines[g].Spawn
	return s >= 0 && r.Trace.Events[s].Flags.Has(trace.FlagInternal)
}
