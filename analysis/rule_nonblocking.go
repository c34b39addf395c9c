package analysis

import "github.com/goweave/goweave/analysis/trace"

// Rule non-blocking operations: a select with a default case, and the non-blocking send or
// receive the compiler makes of a one-case select with default (recorded as a Select with
// the nonblocking flag), never waits. It cannot be the operation a goroutine blocks on
// while holding a lock, so it is never the blocking side of a mixed deadlock: when its
// partner is not ready it takes the default and goes on to unlock. The flag marks the
// select whatever it chose (a case that communicated in this run is still only an offer).
func (r *Result) nonBlocking(i int32) bool {
	ev := &r.Trace.Events[i]
	return ev.Kind == trace.KindSelect && ev.Flags.Has(trace.FlagNonBlocking)
}
