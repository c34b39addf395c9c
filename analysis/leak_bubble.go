package analysis

import "github.com/goweave/goweave/analysis/trace"

// bubbleRule is the rule endedBubble applies, shown in every leak kind's doc.
const bubbleRule = `A goroutine of a testing/synctest bubble (the runtime records the bubble of each spawn)
still blocked after the bubble ended is not reported: synctest.Test returns only when every
goroutine of its bubble has exited, and otherwise panics ("deadlock: main bubble goroutine
has exited but blocked goroutines remain", "deadlock: all goroutines in bubble are
blocked"). Left blocked, they are synctest's own verdict, delivered to the test: a test
that did not recover the panic failed (a failure goweave reports), one that recovered it
asserted the blocking on purpose (a helper like ExpectBlock or ExpectLeak). A bubble whose
caller is still in synctest.Test at the end (a bubble blocked on a mutex, which synctest
does not count as durably blocked) has not ended: its goroutines are judged as any other.`

// endedBubble reports whether goroutine g ran in a testing/synctest bubble that ended
// before the trace was written (bubbleRule).
func (r *Result) endedBubble(g int32) bool {
	if r.bubbleEnded == nil {
		r.bubbleEnded = r.endedBubbles()
	}
	return r.bubbleEnded[r.bubbleOf(g)]
}

// bubbleOf is the bubble id the spawn of goroutine g recorded (FORMAT.md, GoSpawn b), 0
// for none or unknown.
func (r *Result) bubbleOf(g int32) uint64 {
	if g < 0 || int(g) >= len(r.Goroutines) {
		return 0
	}
	s := r.Goroutines[g].Spawn
	if s < 0 || r.Trace.Events[s].Kind != trace.KindGoSpawn {
		return 0
	}
	return r.Trace.Events[s].B
}

// endedBubbles returns the bubbles whose caller (the goroutine outside the bubble that
// spawned its main goroutine: synctest.Run's) is no longer parked in synctest.Run.
func (r *Result) endedBubbles() map[uint64]bool {
	ended := map[uint64]bool{}
	for g := range r.Goroutines {
		b := r.bubbleOf(int32(g))
		if b == 0 {
			continue
		}
		p, ok := r.gIndex[r.Goroutines[g].Parent]
		if !ok || r.bubbleOf(p) == b {
			continue // not the bubble's main goroutine, or its caller is unknown
		}
		caller := r.Goroutines[p]
		ended[b] = caller.Ended || !caller.Alive || caller.Reason != "synctest.Run"
	}
	return ended
}

// withoutEndedBubbles drops the leaks of goroutines of bubbles that ended (bubbleRule).
func (r *Result) withoutEndedBubbles(leaks []leak) []leak {
	out := leaks[:0]
	for _, l := range leaks {
		if !r.endedBubble(r.gOf[l.ev]) {
			out = append(out, l)
		}
	}
	return out
}
