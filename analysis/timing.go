package analysis

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/goweave/goweave/analysis/trace"
)

// Timing-dependent failures. A test that waits for another goroutine by the clock (a
// time.Sleep, a timer, a context's deadline) instead of by a synchronisation fails when
// that goroutine is slower than the wait: goweave's schedule holds goroutines for tens of
// milliseconds, so such tests fail under it. The failure is real (a loaded CI machine
// delays goroutines too), but it is the test's reliance on time, not a concurrency bug of
// the module's synchronisation. The runtime records how long the schedule held each
// goroutine and every wait bounded by the clock (trace.Timed); a run shows the failure's
// timing when a wait of one goroutine expired while the schedule held another one. Whether
// the failure needed it is the campaign's call, over all of its failing runs
// (fuzzer/campaign: every failing run must show it).

// Timing is a run's evidence that a wait bounded by the clock expired while goweave's
// schedule held another goroutine before an operation it was due to perform.
type Timing struct {
	// Wait is what waited, as the source says it: "time.Sleep(20ms)", "a timer of 50ms
	// (time.After or time.NewTimer)", "a timer of 1s (time.AfterFunc or a context's
	// deadline)".
	Wait string `json:"wait"`
	// WaitKind is "sleep", "timer" (a timer with a channel), "func-timer" (time.AfterFunc,
	// a context's deadline or timeout) or "ticker" (a select held until its tick came).
	WaitKind string `json:"waitKind"`
	// WaitMs is the wait's duration; for sleeps repeated at one line by one goroutine (a
	// polling loop), the last one's, with Sleeps how many there were.
	WaitMs float64 `json:"waitMs"`
	Sleeps int     `json:"sleeps,omitempty"`
	// At is the Sleep call or the timer's creation.
	At Position `json:"at"`
	// Waiter is the goroutine that waited, Delayed the one the schedule held, DelayedMs
	// how long, before the operation at HeldAt.
	Waiter    Goroutine `json:"waiter"`
	Delayed   Goroutine `json:"delayed"`
	DelayedMs float64   `json:"delayedMs"`
	HeldAt    Position  `json:"heldAt"`
	// Runs is, in a campaign's report, how many failing runs showed it (all of them).
	Runs int `json:"runs,omitempty"`
	// Late: no hold of goweave's schedule crossed the wait; the Delayed goroutine, spawned
	// before the sleep, had not run when it ended (a slow machine: timing_late.go).
	// DelayedMs is then the wait, a lower bound.
	Late bool `json:"late,omitempty"`
	// NeverRan: a Late goroutine that had performed no operation when the run ended;
	// HeldAt is then its go statement.
	NeverRan bool `json:"neverRan,omitempty"`
	// HeldToEnd: the Delayed goroutine, the waiter's own, was parked by goweave's schedule
	// after its operation at HeldAt, before the wait expired, until the run ended (a hold
	// that never ended, so no hold was recorded: timing_late.go).
	HeldToEnd bool `json:"heldToEnd,omitempty"`
	// MeasuredMs: a wall-clock assertion (WaitKind "clock", timing_measured.go): the
	// duration the failure's message reports the test measured; WaitMs is the bound it
	// states, At the failure's line. With Late, SleptMs is the test's sleep the measurement
	// spans.
	MeasuredMs float64 `json:"measuredMs,omitempty"`
	SleptMs    float64 `json:"sleptMs,omitempty"`
	// ExpiredAtLook: a timer that had expired when the select waiting on it first looked,
	// while another of its cases was ready too (timing_look.go); HeldAt is the select.
	ExpiredAtLook bool `json:"expiredAtLook,omitempty"`
	// Partner: a select (HeldAt) that goweave's schedule kept from this pending operation
	// of goroutine PartnerID, ready before the wait expired, until its clock's case came
	// (timing_passed.go).
	Partner   *Position `json:"partner,omitempty"`
	PartnerID uint64    `json:"partnerGoroutine,omitempty"`
}

// Summary says what Timing shows, in one sentence.
func (t *Timing) Summary() string {
	switch {
	case t.WaitKind == "clock":
		return t.measuredSummary()
	case t.ExpiredAtLook:
		return t.lookSummary()
	case t.Partner != nil:
		return t.passedSummary()
	}
	if t.WaitKind == "ticker" {
		return fmt.Sprintf("%s was held by goweave's schedule %s before %s:%d, which waits on %s at %s:%d, while it ticked",
			t.goroutine(t.Delayed), formatMs(t.DelayedMs), filepath.Base(t.HeldAt.File), t.HeldAt.Line, t.Wait, filepath.Base(t.At.File), t.At.Line)
	}
	who := t.waiterName()
	if t.HeldToEnd {
		return fmt.Sprintf("%s waits with %s at %s:%d; %s was held by goweave's schedule after %s:%d from before the wait expired until the run ended",
			who, t.Wait, filepath.Base(t.At.File), t.At.Line, t.goroutine(t.Delayed), filepath.Base(t.HeldAt.File), t.HeldAt.Line)
	}
	if t.Late && t.NeverRan {
		return fmt.Sprintf("%s waits with %s at %s:%d; %s, started before it, had not run at all when the wait expired (nor when the run ended)",
			who, t.Wait, filepath.Base(t.At.File), t.At.Line, t.goroutine(t.Delayed))
	}
	if t.Late {
		return fmt.Sprintf("%s waits with %s at %s:%d; %s, started before it, had not reached %s:%d when the wait expired (not held by goweave's schedule: the machine was slow)",
			who, t.Wait, filepath.Base(t.At.File), t.At.Line, t.goroutine(t.Delayed), filepath.Base(t.HeldAt.File), t.HeldAt.Line)
	}
	wait := t.Wait
	if t.Sleeps > 1 {
		wait = fmt.Sprintf("%s (%d times at that line)", wait, t.Sleeps)
	}
	return fmt.Sprintf("%s waits with %s at %s:%d; %s was delayed %s by goweave's schedule before %s:%d, and the wait expired first",
		who, wait, filepath.Base(t.At.File), t.At.Line, t.goroutine(t.Delayed), formatMs(t.DelayedMs), filepath.Base(t.HeldAt.File), t.HeldAt.Line)
}

// goroutine names g: its id and where it was started.
// waiterName names the goroutine that waits by the clock: the test's own, or a goroutine
// with where it started.
func (t *Timing) waiterName() string {
	if t.Waiter.Spawn == "" {
		return "the test"
	}
	return t.goroutine(t.Waiter)
}

func (t *Timing) goroutine(g Goroutine) string {
	if g.Spawn == "" {
		return fmt.Sprintf("goroutine %d", g.ID)
	}
	return fmt.Sprintf("goroutine %d (started at %s)", g.ID, g.Spawn)
}

func formatMs(ms float64) string {
	if ms >= 10 {
		return fmt.Sprintf("%.0f ms", ms)
	}
	return fmt.Sprintf("%.1f ms", ms)
}

// TimingOf returns tr's evidence of a timing-dependent outcome, nil when it has none: a
// wait of one goroutine (the last of its sleeps at one line; a timer that fired) that
// expired while the schedule held another goroutine before an operation on an object the
// waiting goroutine uses too (a channel, a mutex, ...): that goroutine was due to perform
// its operation before the wait ended (the hold began before), and performed it after (the
// hold ended after). Unheld, it would have beaten the clock. Or a timer that expired while
// the schedule held the goroutine that set it, right before it waits on the timer's
// channel (a select on it): its deadline ran out while it was held. Or a select that a
// preference held, while another of its cases was ready, until its clock's case came (a
// timer's channel, or a Done channel a context's deadline closed): a goroutine that slow
// finds both ready and Go picks either. The hold need not be longer than the wait: a
// worker that started late is held for less than the test slept. Of several, the longest
// wait is named: the one the test relies on.
func TimingOf(tr *trace.Trace) *Timing { return timingOf(tr, false) }

// TimingKind reports whether findings of kind can be timing-dependent (TimingFor).
func TimingKind(kind string) bool { return outcomeKind(kind) || clockOrderedKind(kind) }

// outcomeKind: the outcomes of a run the test's own assertions or a panic judged.
func outcomeKind(kind string) bool { return kind == "flaky-failure" || kind == "flaky-panic" }

// clockOrderedKind: a stuck run, which a test that waits by time.Sleep for its own goroutines
// to reach a point (a barrier) gets when one of them is late. Not a send or close on a closed
// channel: a close after a sleep "for the sender" is the unordered close the project's own
// fixtures (lsp/testdata/buggy, fuzzer/replay's TestCloseRace) report as a bug.
func clockOrderedKind(kind string) bool { return kind == "deadlock" }

// TimingFor is f's evidence in tr (the run in which f happened) of needing the clock, nil
// when it has none. A flaky failure or panic has TimingOf's. A deadlock is a bug whatever
// the clock when any operation it names is code under test (a timeout path that deadlocks,
// as a timer that fires early provokes), so it has evidence only when all of its positions
// are written in a Test function (inTestFunc) and a time.Sleep written there too, used as
// the barrier, expired while the schedule held another goroutine that, at the held
// operation or after it, works on an object the sleeper uses: the test waited for its own
// goroutines by the clock. Timers do not count for it.
func TimingFor(tr *trace.Trace, f *Finding) *Timing {
	switch {
	case f.Confidence == Predicted:
		return nil // it did not happen in tr
	case outcomeKind(f.Kind):
		// The failure's own message, when it reports a measurement over its bound, names
		// what failed more closely than any wait of the run.
		if len(f.Positions) > 0 {
			if t := measuredTimingOf(tr, f.Message, f.Positions[0]); t != nil {
				return t
			}
		}
		return TimingOf(tr)
	case !clockOrderedKind(f.Kind) || len(f.Positions) == 0:
		return nil
	}
	for _, p := range f.Positions {
		if !inTestFunc(p.File, p.Line) {
			return nil
		}
	}
	return timingOf(tr, true)
}

// sleepKey names the sleeps at one line of one goroutine (a polling loop's rounds).
type sleepKey struct {
	g   uint64
	pos uint32
}

// lastSleeps indexes the sleeps among waits by line and goroutine: the last of each (its
// index in waits), which stands for them all, and how many there were.
func lastSleeps(waits []trace.Timed) (last, count map[sleepKey]int) {
	last, count = map[sleepKey]int{}, map[sleepKey]int{}
	for i, w := range waits {
		if w.Aux == trace.WaitSleep {
			k := sleepKey{w.G, w.Pos}
			count[k]++
			if j, ok := last[k]; !ok || waits[j].Start < w.Start {
				last[k] = i
			}
		}
	}
	return last, count
}

// timingOf is TimingOf; barrier restricts it to a test's sleeps (TimingFor).
func timingOf(tr *trace.Trace, barrier bool) *Timing {
	var holds, waits []trace.Timed
	for _, t := range tr.Timed {
		switch t.Kind {
		case trace.KindHold:
			holds = append(holds, t)
		case trace.KindTimedWait:
			waits = append(waits, t)
		}
	}
	if len(waits) == 0 {
		return nil // without holds, a goroutine late by the machine may still be (timing_late.go)
	}
	waits, expired, reset := timerSettings(tr, waits)
	last, sleeps := lastSleeps(waits)
	var best *Timing
	var bestDur time.Duration
	rel := &timingRelation{tr: tr}
	for i, w := range waits {
		if w.Aux == trace.WaitTicker {
			continue // a period, not a deadline: only a select held for its tick (below)
		}
		if barrier && (w.Aux != trace.WaitSleep || !inTestFunc(tr.Position(w.Pos).File, tr.Position(w.Pos).Line)) {
			continue
		}
		due := w.End() // when it expired, unrounded
		if w.Aux != trace.WaitSleep {
			// A timer's duration is measured from its due time after it was set: a
			// little short of what the program asked for.
			w.Dur = roundUp2(w.Dur)
		}
		n := 1
		if w.Aux == trace.WaitSleep {
			k := sleepKey{w.G, w.Pos}
			if last[k] != i {
				continue // an earlier round of a polling loop: it went on waiting
			}
			n = sleeps[k]
		} else if !expired[w.Stamp] {
			continue // stopped (or reset) before it fired: nothing expired
		}
		for _, h := range holds {
			if due <= h.Start || due >= h.End() {
				continue
			}
			if best != nil && w.Dur <= bestDur {
				continue
			}
			switch {
			case h.Obj != 0 && !barrier && rel.clockOf(w, h.Obj):
				// A preference held the select for its clock's case (channel h.Obj)
				// while another case was ready.
			case h.G == w.G:
				// The goroutine that set a timer, held past it right before it waits
				// on the timer's channel (or on the Done channel its context's
				// deadline closed), finds it fired: its deadline was too short for a
				// delayed goroutine. No other wait can end during its own hold.
				if barrier || h.Obj != 0 || w.Aux == trace.WaitSleep || !rel.heldWaitsOn(h, w) {
					continue
				}
			case barrier:
				if !rel.shareLater(h, w.G) {
					continue // the held goroutine never again works on what the sleeper uses
				}
			case !rel.shareObject(h, w.G) && !rel.stoppedShares(h, w):
				continue // the waiter never touches what the held operation works on
			}
			if rel.waitsAnyway(rel.heldEvent(h)) {
				continue // held from nothing: an idle select (timing_idle.go)
			}
			if !barrier && rel.madeUpFor(h, w) {
				continue // the sleeper had the held goroutine answer a request before it failed (timing_synced.go)
			}
			at, heldAt := tr.Position(w.Pos), tr.Position(h.Pos)
			if at.File == "" || heldAt.File == "" {
				continue
			}
			bestDur = w.Dur
			best = &Timing{
				WaitMs: ms(w.Dur), At: Position{Role: "wait", File: at.File, Line: at.Line, Column: LineColumn(at.File, at.Line)},
				Waiter: timingGoroutine(tr, w.G), Delayed: timingGoroutine(tr, h.G), DelayedMs: ms(h.Dur),
				HeldAt: Position{Role: "held", File: heldAt.File, Line: heldAt.Line, Column: LineColumn(heldAt.File, heldAt.Line)},
			}
			if n > 1 {
				best.Sleeps = n
			}
			if w.Aux == trace.WaitSleep {
				best.WaitKind, best.Wait = "sleep", fmt.Sprintf("time.Sleep(%v)", w.Dur)
			} else {
				best.Wait, best.WaitKind = timerWait(w, w.Dur, reset[w.Stamp])
			}
		}
	}
	if best == nil && !barrier {
		best = tickOf(tr, holds, waits)
	}
	if best == nil && !barrier {
		best = expiredAtLookOf(tr, waits, reset) // timing_look.go
	}
	if best == nil && !barrier {
		best = passedOverOf(tr, rel, waits, reset) // timing_passed.go
	}
	if best == nil {
		best = lateStartOf(tr, rel, waits, last, reset, barrier) // timing_late.go
	}
	return best
}

// tickOf is the evidence of a select that a preference held, while another of its cases
// was ready, until its ticker's case came: a tick came during the hold (the case was not
// ready at the first look) and won over the ready case, as it can for a goroutine that
// slow. The longest period is named. A ticker whose ticks only holds without that
// preference spanned is no evidence, however often it ticked during them (a janitor's 1 ms
// ticker would make every hold evidence, even a hold of its own goroutine before its
// select: whether another case was ready then is not recorded).
func tickOf(tr *trace.Trace, holds, waits []trace.Timed) *Timing {
	var best *Timing
	var bestDur time.Duration
	for _, w := range waits {
		if w.Aux != trace.WaitTicker || best != nil && w.Dur <= bestDur {
			continue
		}
		for _, h := range holds {
			if h.Obj != w.Obj || w.End() >= h.End() {
				continue // not held for this ticker's case, or before its first tick
			}
			at, heldAt := tr.Position(w.Pos), tr.Position(h.Pos)
			if at.File == "" || heldAt.File == "" {
				continue
			}
			bestDur = w.Dur
			best = &Timing{
				Wait: fmt.Sprintf("a ticker of %v (time.NewTicker or time.Tick)", roundUp2(w.Dur)), WaitKind: "ticker", WaitMs: ms(roundUp2(w.Dur)),
				At:     Position{Role: "wait", File: at.File, Line: at.Line, Column: LineColumn(at.File, at.Line)},
				Waiter: timingGoroutine(tr, h.G), Delayed: timingGoroutine(tr, h.G), DelayedMs: ms(h.Dur),
				HeldAt: Position{Role: "held", File: heldAt.File, Line: heldAt.Line, Column: LineColumn(heldAt.File, heldAt.Line)},
			}
			break
		}
	}
	return best
}

// timingRelation tells whether a held operation works on an object (a channel, a mutex,
// a WaitGroup, ...) that a waiting goroutine uses too: the wait is then for that operation
// (or for what follows it), not for an unrelated goroutine the schedule happened to hold.
type timingRelation struct {
	tr   *trace.Trace
	byG  map[uint64][]int           // event indices of each goroutine
	objs map[uint64]map[uint64]bool // objects each goroutine's events use
	// stopped: of each function timer, the goroutines its fire's closes stop (stoppedBy)
	stopped map[uint64]map[uint64]bool
	fired   map[uint64]uint64 // of each function timer that fired, its goroutine's GoSpawn stamp
	// hb: the per-event clocks, once a rule needed them (timing_synced.go)
	hb          *Clocks
	clocksTried bool
	anyway      map[int]bool // waitsAnyway, by event (timing_idle.go)
	clockChans  map[uint64]bool
	clocksKnown bool // clockChans computed (nil: a function timer never fired)
}

// firedAt is the stamp at which function timer obj fired (its function's goroutine was
// started), 0 when it did not.
func (r *timingRelation) firedAt(obj uint64) uint64 {
	if r.fired == nil {
		r.fired = map[uint64]uint64{}
		for i := range r.tr.Events {
			if e := &r.tr.Events[i]; e.Kind == trace.KindGoSpawn && e.G == 0 && e.Obj != 0 {
				if _, ok := r.fired[e.Obj]; !ok {
					r.fired[e.Obj] = e.Pre
				}
			}
		}
	}
	return r.fired[obj]
}

// shareObject reports whether the operation h held and goroutine g's operations have an
// object in common.
func (r *timingRelation) shareObject(h trace.Timed, g uint64) bool {
	r.index()
	held := r.heldEvent(h)
	if held < 0 {
		return false
	}
	used := r.objectsOf(g)
	for _, o := range eventObjects(&r.tr.Events[held]) {
		if used[o] {
			return true
		}
	}
	return false
}

// shareLater reports whether the operation h held, or any later one of its goroutine, and
// goroutine g's operations have an object in common.
func (r *timingRelation) shareLater(h trace.Timed, g uint64) bool {
	r.index()
	held := r.heldEvent(h)
	return held >= 0 && r.sharesFrom(h.G, r.tr.Events[held].Pre, r.objectsOf(g))
}

// sharesFrom reports whether an operation of goroutine g requested at stamp from or later
// works on one of the objects in used.
func (r *timingRelation) sharesFrom(g uint64, from uint64, used map[uint64]bool) bool {
	for _, i := range r.byG[g] {
		if e := &r.tr.Events[i]; e.Pre >= from {
			for _, o := range eventObjects(e) {
				if used[o] {
					return true
				}
			}
		}
	}
	return false
}

// stoppedShares reports whether wait w is a function timer (a context's deadline) whose
// fire closed a channel that a goroutine waits on (a receive or a select case: it stops
// on the deadline) whose operations share an object with the operation h held: the
// deadline stopped a goroutine that was due to take what the held one was about to hand
// over (a consumer of a held producer), not only the goroutine that set it.
func (r *timingRelation) stoppedShares(h trace.Timed, w trace.Timed) bool {
	if w.Aux != trace.WaitTimerFunc {
		return false
	}
	r.index()
	if r.stopped == nil {
		r.stopped = map[uint64]map[uint64]bool{}
	}
	stopped, ok := r.stopped[w.Obj]
	if !ok {
		stopped = r.stoppedBy(w)
		r.stopped[w.Obj] = stopped
	}
	for g := range stopped {
		if g != h.G && r.shareObject(h, g) {
			return true
		}
	}
	return false
}

// stoppedBy are the goroutines other than w's own that receive from a channel the fire of
// function timer w closed.
func (r *timingRelation) stoppedBy(w trace.Timed) map[uint64]bool {
	closed := map[uint64]bool{}
	for i := range r.tr.Events {
		e := &r.tr.Events[i]
		if e.Kind != trace.KindGoSpawn || e.G != 0 || e.Obj != w.Obj {
			continue
		}
		for _, j := range r.byG[e.A] {
			if c := &r.tr.Events[j]; c.Kind == trace.KindChanClose {
				closed[c.Obj] = true
			}
		}
	}
	stopped := map[uint64]bool{}
	if len(closed) == 0 {
		return stopped
	}
	for i := range r.tr.Events {
		e := &r.tr.Events[i]
		if e.G == w.G || stopped[e.G] {
			continue
		}
		switch e.Kind {
		case trace.KindChanRecv:
			if closed[e.Obj] {
				stopped[e.G] = true
			}
		case trace.KindSelect:
			if slices.ContainsFunc(e.Cases, func(c trace.Case) bool { return !c.Send && closed[c.Obj] }) {
				stopped[e.G] = true
			}
		}
	}
	return stopped
}

// clockOf reports whether wait w, a timer, is the clock of channel ch: the timer's own
// channel, or one that the goroutine a function timer started (a context's deadline
// cancelling it) closed.
func (r *timingRelation) clockOf(w trace.Timed, ch uint64) bool {
	switch w.Aux {
	case trace.WaitTimerChan, trace.WaitTicker:
		return w.Obj == ch
	case trace.WaitTimerFunc:
		r.index()
		for i := range r.tr.Events {
			e := &r.tr.Events[i]
			if e.Kind != trace.KindGoSpawn || e.G != 0 || e.Obj != w.Obj {
				continue
			}
			for _, j := range r.byG[e.A] {
				if c := &r.tr.Events[j]; c.Kind == trace.KindChanClose && c.Obj == ch {
					return true
				}
			}
		}
	}
	return false
}

// objectsOf are the objects goroutine g's events use.
func (r *timingRelation) objectsOf(g uint64) map[uint64]bool {
	used := r.objs[g]
	if used == nil {
		used = map[uint64]bool{}
		for _, i := range r.byG[g] {
			for _, o := range eventObjects(&r.tr.Events[i]) {
				used[o] = true
			}
		}
		r.objs[g] = used
	}
	return used
}

// index lists each goroutine's events, once.
func (r *timingRelation) index() {
	if r.byG != nil {
		return
	}
	r.byG = map[uint64][]int{}
	for i := range r.tr.Events {
		r.byG[r.tr.Events[i].G] = append(r.byG[r.tr.Events[i].G], i)
	}
	r.objs = map[uint64]map[uint64]bool{}
}

// heldWaitsOn reports whether the operation hold h held works on the channel of timer w:
// its own, or one its function's goroutine closed (clockOf).
func (r *timingRelation) heldWaitsOn(h trace.Timed, w trace.Timed) bool {
	r.index()
	held := r.heldEvent(h)
	if held < 0 {
		return false
	}
	return slices.ContainsFunc(eventObjects(&r.tr.Events[held]), func(o uint64) bool { return r.clockOf(w, o) })
}

// heldEvent is the operation hold h held: the event of its goroutine at its position
// whose request is nearest the hold's record (just after it for a hold before the
// operation, just before it for a select a preference held open, the latest before it for
// one whose preferred case came); -1 when it never came.
func (r *timingRelation) heldEvent(h trace.Timed) int {
	best, dist := -1, uint64(0)
	if h.Obj != 0 {
		// A preference whose case came is recorded once the select completed with it:
		// the latest execution requested before the record.
		for _, i := range r.byG[h.G] {
			if e := &r.tr.Events[i]; e.Pos == h.Pos && e.Pre < h.Stamp && (best < 0 || e.Pre > r.tr.Events[best].Pre) {
				best = i
			}
		}
		return best
	}
	for _, i := range r.byG[h.G] {
		e := &r.tr.Events[i]
		if e.Pos != h.Pos {
			continue
		}
		d := e.Pre - h.Stamp
		if e.Pre < h.Stamp {
			if e.Post != 0 && e.Post < h.Stamp {
				continue // done before the hold ended: an earlier execution
			}
			d = h.Stamp - e.Pre
		}
		if best < 0 || d < dist {
			best, dist = i, d
		}
	}
	return best
}

// eventObjects are the objects e operates on: its own, and a select's cases' channels.
func eventObjects(e *trace.Event) []uint64 {
	var out []uint64
	if e.Obj != 0 {
		out = append(out, e.Obj)
	}
	for _, c := range e.Cases {
		if c.Obj != 0 {
			out = append(out, c.Obj)
		}
	}
	return out
}

// timerDur says how long a timer of d waited: the runtime records a timer that was due
// before its goroutine had set it (a short one, on a loaded machine) as 1 ns.
func timerDur(d time.Duration) string {
	if d <= 1 {
		return "already due when it was set"
	}
	return fmt.Sprintf("of %v", d)
}

// roundUp2 rounds d up to two significant digits: 994.512µs is 1ms.
func roundUp2(d time.Duration) time.Duration {
	if d < 10 {
		return d
	}
	unit := time.Duration(1)
	for d/unit >= 100 {
		unit *= 10
	}
	return (d + unit - 1) / unit * unit
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// timingGoroutine names goroutine id by its spawn site, module-relative ("" for the test
// goroutine, or when the trace does not show the spawn).
func timingGoroutine(tr *trace.Trace, id uint64) Goroutine {
	g := Goroutine{ID: id}
	var spawns []int
	for i := range tr.Events {
		if e := &tr.Events[i]; e.Kind == trace.KindGoSpawn && e.A == id && e.G != 0 {
			spawns = append(spawns, i)
		}
	}
	sort.Ints(spawns)
	if len(spawns) > 0 {
		p := tr.Position(tr.Events[spawns[0]].Pos)
		if p.File != "" {
			file := filepath.Base(p.File)
			if root := tr.Meta["module"]; root != "" {
				if rel, err := filepath.Rel(root, p.File); err == nil && !strings.HasPrefix(rel, "..") {
					file = filepath.ToSlash(rel)
				}
			}
			g.Spawn = fmt.Sprintf("%s:%d", file, p.Line)
		}
	}
	return g
}
