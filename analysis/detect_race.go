package analysis

import "fmt"

var DataRace = &Detector{
	Name: "data-race",
	Doc: `Two conflicting accesses to a program variable (at least one a write) that happens-before does not order, as reported by the race detector; or a WaitGroup Add from a zero counter unordered with a Wait of the same group.

A data race makes the program's behaviour undefined: torn values, lost updates, stale reads.
goweave reports variable races from -race runs (the recorded trace holds no memory
accesses), at the innermost lines of your module on each side (inside the package's code
when the race is there), with the test's calls that led to them as related positions. A
plain access racing an atomic one is reported at the plain access, the one to fix, with
the atomic operation found in the trace. A race goweave cannot place at your module's own
accesses (one side runs only in a dependency's goroutine, the race is inside runtime code such
as a map's, or the report cannot be read) still fails go test -race: it is reported with the
report's two accesses as the race detector names them, at your module's call into that code
or where your module started the goroutine (else at the test). Without the race detector, the
runtime's "fatal error: concurrent map writes" (or read and write) is reported as a data race
at the goroutine that hit it. Fix it by protecting the variable with a mutex,
using sync/atomic for every access to it, or handing the value over through a channel.
A variable race is seen only in a run whose schedule leaves the two accesses unordered to the
race detector. goweave cannot hold a goroutine before operations recorded inside a library
(the lock a context's Done and cancel share, the ticker a goroutine makes first), so a field
a goroutine reads before its first select on ctx.Done() looks ordered before a later cancel
and reassignment unless the goroutine started late by itself. On go1.25 and go1.26 the race
detector also orders every creation of a time.NewTimer or NewTicker after the earlier ones: a
write before one goroutine creates a timer and a read after another goroutine creates one
later are never reported (go1.27 reports them).
From the trace goweave reports the race on a WaitGroup its documentation forbids: an Add
that starts when the counter is zero must happen before the Wait (classically wg.Add called
inside the goroutine it counts), else the Wait can return before the work is counted. An
order made only by a lock the Add's goroutine took after the Add (ctx.Done() and cancel
share a context's lock) is this schedule's: the race is predicted, and confirmed by holding
the Add until the Wait comes; an order the trace does not hold (a flag the Wait's goroutine
checks first, an atomic inside a dependency's function that was not inlined into the
module's code; a wrapper's such as go.uber.org/atomic's Bool is inlined and recorded) is not
seen, and such a prediction is refuted by that confirmation. Call Add before the go statement (or use
wg.Go).`,
	Run: func(r *Result) []Finding {
		var out []Finding
		for _, p := range r.facts.addWait {
			f := addWaitFinding(r, p)
			if f.Kind != "" {
				// related, after the fingerprint: the test's calls that led into the package
				f.Positions = append(f.Positions, r.testCalls(p.add, p.wait)...)
			}
			out = append(out, f)
		}
		return out
	},
}

// addWaitFinding reports Add a (from a zero counter) and Wait w racing (rule WgAddWait),
// at the Add, the line to move. It happened when the Wait was entered with work counted
// after the Add (the race detector's report), or ran before the Add (it did not wait for
// its work); with the Add's work done before the Wait was entered, or a lock ordering them
// in this run, it is a prediction.
func addWaitFinding(r *Result, p addWaitPair) Finding {
	a, w := p.add, p.wait
	ea, ew := &r.Trace.Events[a], &r.Trace.Events[w]
	add := wgCall(r, a)
	wait := r.operand(w, "wg") + ".Wait()"
	const fix = "an Add from a zero counter must happen before the Wait (call it before the go statement)"
	switch {
	case p.locked:
		msg := fmt.Sprintf("%s at %s, from a zero counter, is ordered before %s at %s only by a lock taken after it: in another schedule that lock is taken first and the Wait returns without waiting for this work; %s",
			add, r.at(a), wait, r.at(w), fix)
		if ew.Pre < ea.Pre {
			msg = fmt.Sprintf("%s at %s, from a zero counter, is ordered after %s at %s only by a lock taken before the Add: in another schedule the Add runs while the Wait has not returned; %s",
				add, r.at(a), wait, r.at(w), fix)
		}
		return r.newFinding("data-race", Predicted, msg, op{"add", a}, op{"wait", w})
	case ew.Pre < ea.Pre:
		msg := fmt.Sprintf("%s at %s ran when the counter was zero, after %s at %s had started and without being ordered after it: the Wait did not wait for this work; %s",
			add, r.at(a), wait, r.at(w), fix)
		return r.newFinding("data-race", Actual, msg, op{"add", a}, op{"wait", w})
	case int64(ew.B) > 0:
		msg := fmt.Sprintf("%s at %s, from a zero counter, races with %s at %s: nothing orders it before the Wait, which in another schedule returns before this work is counted; %s",
			add, r.at(a), wait, r.at(w), fix)
		return r.newFinding("data-race", Actual, msg, op{"add", a}, op{"wait", w})
	}
	msg := fmt.Sprintf("%s at %s, from a zero counter, is not ordered before %s at %s: in another schedule the Wait runs first and returns without waiting for this work; %s",
		add, r.at(a), wait, r.at(w), fix)
	return r.newFinding("data-race", Predicted, msg, op{"add", a}, op{"wait", w})
}
