package analysis

import (
	"fmt"
	"time"

	"github.com/goweave/goweave/analysis/trace"
)

// A goroutine late by the machine. goweave's holds are not the only delays: on a loaded
// machine (a CI runner, a laptop building) a goroutine started before a test's time.Sleep
// may not run at all until the sleep is over, in a free run as in a steered one. Such a run
// fails the same way as one whose worker the schedule held, yet no hold crossed the wait,
// and without evidence of its own it would make the campaign call the failure a bug (every
// failing run must show timing evidence). The evidence: a goroutine spawned before a sleep
// began performed no operation until after the sleeper's next one (the sleep was over), and
// then worked on an object the sleeper uses. Only sleeps: a timer's wait ends in the select
// that waits on it, whose own event does not mark when the clock ran out.

// lateStartOf returns the evidence of a goroutine spawned before a sleep of tr and not yet
// run when it ended, nil when there is none; the longest such sleep is named. barrier
// restricts it to sleeps written in a Test function (TimingFor's deadlocks).
func lateStartOf(tr *trace.Trace, rel *timingRelation, waits []trace.Timed, last map[sleepKey]int, barrier bool) *Timing {
	rel.index()
	first := map[uint64]int{} // each goroutine's first event (the lowest request stamp)
	for g, evs := range rel.byG {
		for _, i := range evs {
			if j, ok := first[g]; !ok || tr.Events[i].Pre < tr.Events[j].Pre {
				first[g] = i
			}
		}
	}
	var spawns []int
	for i := range tr.Events {
		if sp := &tr.Events[i]; sp.Kind == trace.KindGoSpawn && sp.G != 0 {
			spawns = append(spawns, i)
		}
	}
	// Of the sleeps at one line of one goroutine (a polling loop), the last (lastSleeps):
	// the loop gave up after it. Each examined sleep costs a pass over the spawns and the
	// sleeper's events.
	var best *Timing
	var bestDur time.Duration
	for i, w := range waits {
		if w.Aux != trace.WaitSleep || last[sleepKey{w.G, w.Pos}] != i || best != nil && w.Dur <= bestDur {
			continue
		}
		at := tr.Position(w.Pos)
		if at.File == "" || barrier && !inTestFunc(at.File, at.Line) {
			continue
		}
		resumed := -1 // the sleeper's first operation after the sleep began: the sleep was over
		for _, i := range rel.byG[w.G] {
			if e := &tr.Events[i]; e.Pre > w.Stamp && (resumed < 0 || e.Pre < tr.Events[resumed].Pre) {
				resumed = i
			}
		}
		if resumed < 0 {
			continue
		}
		used := rel.objectsOf(w.G)
		for _, k := range spawns {
			sp := &tr.Events[k]
			if sp.Pre >= w.Stamp || sp.A == w.G {
				continue
			}
			f, ran := first[sp.A]
			var heldAt trace.Position
			switch {
			case ran && tr.Events[f].Pre < tr.Events[resumed].Pre:
				continue // it ran during the sleep
			case ran && !rel.sharesFrom(sp.A, tr.Events[f].Pre, used):
				continue // the sleeper never waited for anything it does
			case ran:
				heldAt = tr.Position(tr.Events[f].Pos)
			case sp.G != w.G:
				continue // never ran, and not the sleeper's own: nothing ties them
			default:
				// The sleeper's own goroutine never ran at all before the run ended
				// (the schedule held it at its first operation, or the machine never
				// gave it a turn): what it would have done is unknown, but the
				// sleeper went on as if it had run. Named by its go statement.
				heldAt = tr.Position(sp.Pos)
			}
			if heldAt.File == "" {
				continue
			}
			best = &Timing{
				Wait: fmt.Sprintf("time.Sleep(%v)", w.Dur), WaitKind: "sleep", WaitMs: ms(w.Dur),
				At:     Position{Role: "wait", File: at.File, Line: at.Line, Column: LineColumn(at.File, at.Line)},
				Waiter: timingGoroutine(tr, w.G), Delayed: timingGoroutine(tr, sp.A), DelayedMs: ms(w.Dur),
				HeldAt: Position{Role: "held", File: heldAt.File, Line: heldAt.Line, Column: LineColumn(heldAt.File, heldAt.Line)},
				Late:   true, NeverRan: !ran,
			}
			bestDur = w.Dur
			break
		}
	}
	return best
}
