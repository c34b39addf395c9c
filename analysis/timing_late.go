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
// then worked on an object the sleeper uses. A timer likewise, with the receive or select
// that took its value (time.After), or the start of its function's goroutine (a context's
// deadline), as the point by which it was over; and as a timer's setter goes on after
// setting it, a goroutine it started later but before the timer fired counts when it never
// ran at all.

// lateStartOf returns the evidence of a goroutine spawned before a sleep of tr and not yet
// run when it ended, nil when there is none; the longest such sleep is named. barrier
// restricts it to sleeps written in a Test function (TimingFor's deadlocks). Of a timer's
// Resets (reset, by stamp) at one line of one goroutine (a loop resetting its timer), only
// the last counts, as for sleeps: each costs a pass over the spawns.
func lateStartOf(tr *trace.Trace, rel *timingRelation, waits []trace.Timed, last map[sleepKey]int, reset map[uint64]bool, barrier bool) *Timing {
	rel.index()
	lastReset := map[sleepKey]uint64{}
	for _, w := range waits {
		if k := (sleepKey{w.G, w.Pos}); reset[w.Stamp] && w.Stamp > lastReset[k] {
			lastReset[k] = w.Stamp
		}
	}
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
		switch {
		case best != nil && w.Dur <= bestDur:
			continue
		case w.Aux == trace.WaitSleep && last[sleepKey{w.G, w.Pos}] == i:
		case (w.Aux == trace.WaitTimerChan || w.Aux == trace.WaitTimerFunc) && !barrier && w.Dur >= minLookTimer &&
			(!reset[w.Stamp] || lastReset[sleepKey{w.G, w.Pos}] == w.Stamp):
		default:
			continue
		}
		at := tr.Position(w.Pos)
		if at.File == "" || barrier && !inTestFunc(at.File, at.Line) {
			continue
		}
		over := overAt(tr, rel, w) // a stamp by which the wait was over
		if over == 0 {
			continue
		}
		used := rel.objectsOf(w.G)
		for _, k := range spawns {
			sp := &tr.Events[k]
			f, ran := first[sp.A]
			last, held := -1, false
			if ran && sp.G == w.G && rel.sharesFrom(sp.A, 0, used) {
				last, held = heldToEnd(tr, rel, sp.A, over)
				held = held && !rel.waitsAnyway(last)
			}
			switch {
			case sp.A == w.G:
				continue
			case sp.Pre < w.Stamp:
			case w.Aux != trace.WaitSleep && (!ran || held) && sp.G == w.G && sp.Pre < over:
				// A timer's setter goes on after setting it: a goroutine it started
				// before the timer fired and that never ran at all (or stopped before
				// it fired, held to the end) was due before it.
			default:
				continue
			}
			var heldAt trace.Position
			switch {
			case held:
				heldAt = tr.Position(tr.Events[last].Pos)
			case ran && tr.Events[f].Pre < over:
				continue // it ran during the wait
			case ran && !rel.sharesFrom(sp.A, tr.Events[f].Pre, used):
				continue // the sleeper never waited for anything it does
			case ran && rel.learnedOf(f, w):
				continue // it answered the sleeper's request before the sleeper failed (timing_synced.go)
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
			wait, kind, d := fmt.Sprintf("time.Sleep(%v)", w.Dur), "sleep", w.Dur
			if w.Aux != trace.WaitSleep {
				d = roundUp2(w.Dur)
				wait, kind = timerWait(w, d, reset[w.Stamp])
			}
			best = &Timing{
				Wait: wait, WaitKind: kind, WaitMs: ms(d),
				At:     Position{Role: "wait", File: at.File, Line: at.Line, Column: LineColumn(at.File, at.Line)},
				Waiter: timingGoroutine(tr, w.G), Delayed: timingGoroutine(tr, sp.A), DelayedMs: ms(d),
				HeldAt: Position{Role: "held", File: heldAt.File, Line: heldAt.Line, Column: LineColumn(heldAt.File, heldAt.Line)},
				Late:   !held, NeverRan: !ran, HeldToEnd: held,
			}
			bestDur = w.Dur
			break
		}
	}
	return best
}

// overAt is a stamp by which wait w was over, 0 when the trace does not show one: for a
// sleep, its goroutine's first operation after it began; for a channel timer, the completion
// of its goroutine's receive or select that took the timer's value (it had fired); for a
// function timer (a context's deadline), the start of its function's goroutine.
func overAt(tr *trace.Trace, rel *timingRelation, w trace.Timed) uint64 {
	var over uint64
	if w.Aux == trace.WaitTimerFunc {
		return rel.firedAt(w.Obj) // its function's goroutine started
	}
	for _, i := range rel.byG[w.G] {
		e := &tr.Events[i]
		if e.Pre <= w.Stamp {
			continue
		}
		if w.Aux == trace.WaitSleep {
			if over == 0 || e.Pre < over {
				over = e.Pre
			}
			continue
		}
		if e.Completed() && tookFrom(e, w.Obj) && (over == 0 || e.Post < over) {
			over = e.Post
		}
	}
	return over
}

// tookFrom reports whether e, completed, received a value from channel ch (a receive, or a
// select that took ch's receive case).
func tookFrom(e *trace.Event, ch uint64) bool {
	switch e.Kind {
	case trace.KindChanRecv:
		return e.Obj == ch && !e.Flags.Has(trace.FlagClosed)
	case trace.KindSelect:
		for _, c := range e.Cases {
			if c.Index == int(e.A) && !c.Send && c.Obj == ch {
				return true
			}
		}
	}
	return false
}

// heldToEnd reports whether goroutine g, the sleeper's own, was parked by goweave's schedule
// from before stamp over until the run ended, and its last operation (before the hold): it
// was alive at the end waiting with reason "sleep", which is how the schedule parks a
// goroutine it holds (runtimepatch's zz_goweave_steer.go), its last operation was
// requested before over, and it had begun no time.Sleep of its own after it. A hold that
// never ended is never recorded (a Hold is written when it ends).
func heldToEnd(tr *trace.Trace, rel *timingRelation, g uint64, over uint64) (last int, ok bool) {
	alive := false
	for _, gs := range tr.Goroutines {
		if gs.ID == g && gs.WaitReason == "sleep" {
			alive = true
		}
	}
	if !alive {
		return -1, false
	}
	last = -1
	for _, i := range rel.byG[g] {
		if last < 0 || tr.Events[i].Pre > tr.Events[last].Pre {
			last = i
		}
	}
	if last < 0 || tr.Events[last].Pre >= over {
		return -1, false
	}
	for _, t := range tr.Timed {
		if t.Kind == trace.KindTimedWait && t.Aux == trace.WaitSleep && t.G == g && t.Stamp > tr.Events[last].Pre {
			return -1, false // asleep in its own time.Sleep
		}
	}
	return last, true
}
