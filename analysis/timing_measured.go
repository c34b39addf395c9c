package analysis

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"time"

	"github.com/goweave/goweave/analysis/trace"
)

// A wall-clock assertion. A test that measures how long something took (time.Since, two
// time.Now, testify's WithinDuration) and bounds it fails when a goroutine on the measured
// path is delayed: "Max difference between ... allowed is 100ms, but difference was
// -207.86257ms", "expected around 100ms (±50ms), got 196.707171ms". No wait of the trace
// expires there (the clock is read, not waited on), so the evidence is the failure's own
// message: a measured duration (written with more digits than anyone writes a bound) above a
// bound it states (a round duration), and a delay in the run that covers the overrun:
// goweave's schedule held one goroutine for at least the overrun within a span as long as
// the measurement, or, with no such hold, the test slept with time.Sleep in its Test
// function (for at least half the bound, at most the measurement: the sleep the assertion
// is about) and did not wait for another goroutine afterwards, so the time it measured
// beyond its sleep was the machine's.

// durationToken matches a Go duration as time.Duration's String writes it (and people
// write bounds): "207.86257ms", "-348.7ms", "1.5s", "2m0.5s", "100µs".
var durationToken = regexp.MustCompile(`-?(?:\d+h)?(?:\d+m)?(?:\d+(?:\.\d+)?(?:ns|us|µs|μs|ms|s|m|h))\b`)

// measurement is the measured duration and the bound a failure's message reports.
type measurement struct {
	measured, bound time.Duration
}

// measuredOf finds in msg a measured duration (more than 3 significant digits: read off the
// clock) and the largest round duration below it (the bound the test states); ok is false
// when msg has no such pair.
func measuredOf(msg string) (m measurement, ok bool) {
	var round []time.Duration
	for _, tok := range durationToken.FindAllString(msg, -1) {
		d, err := time.ParseDuration(tok)
		if err != nil {
			continue
		}
		if d < 0 {
			d = -d
		}
		if significantDigits(tok) > 3 {
			m.measured = max(m.measured, d)
		} else {
			round = append(round, d)
		}
	}
	for _, d := range round {
		if d < m.measured && d > m.bound {
			m.bound = d
		}
	}
	return m, m.measured > 0 && m.bound > 0
}

// significantDigits counts the digits of a duration token past its leading zeros: 100ms
// has 3, 207.86257ms 8, 1.5s 2.
func significantDigits(tok string) int {
	n, lead := 0, true
	for _, r := range tok {
		switch {
		case r == '0' && lead:
		case r >= '0' && r <= '9':
			lead = false
			n++
		}
	}
	return n
}

// measuredTimingOf is tr's evidence that the wall-clock assertion msg reports (failed at
// at, the failure's line) overran its bound because of a delay: nil when msg reports none or
// the run shows no delay that covers the overrun.
func measuredTimingOf(tr *trace.Trace, msg string, at Position) *Timing {
	m, ok := measuredOf(msg)
	if !ok || at.File == "" {
		return nil
	}
	over := m.measured - m.bound
	base := Timing{
		Wait:       fmt.Sprintf("a wall-clock measurement of %v where the test allows %v", m.measured.Round(10*time.Microsecond), m.bound),
		WaitKind:   "clock",
		WaitMs:     ms(m.bound),
		MeasuredMs: ms(m.measured),
		At:         Position{Role: "wait", File: at.File, Line: at.Line, Column: at.Column},
	}
	if g, total, longest, ok := heldForOverrun(tr, m.measured, over); ok {
		heldAt := tr.Position(longest.Pos)
		if heldAt.File == "" {
			return nil
		}
		t := base
		t.Waiter, t.Delayed = timingGoroutine(tr, g), timingGoroutine(tr, g)
		t.DelayedMs = ms(total)
		t.HeldAt = Position{Role: "held", File: heldAt.File, Line: heldAt.Line, Column: LineColumn(heldAt.File, heldAt.Line)}
		return &t
	}
	// No hold covers it: a sleep of the test that the measurement spans, and nothing the
	// test waited for after it.
	for _, w := range tr.Timed {
		if w.Kind != trace.KindTimedWait || w.Aux != trace.WaitSleep || w.Dur > m.measured || w.Dur < m.bound/2 {
			continue
		}
		p := tr.Position(w.Pos)
		if p.File == "" || !inTestFunc(p.File, p.Line) || waitedAfter(tr, w) {
			continue
		}
		t := base
		t.Waiter, t.Delayed = timingGoroutine(tr, w.G), timingGoroutine(tr, w.G)
		t.DelayedMs = ms(m.measured - w.Dur)
		t.HeldAt = Position{Role: "held", File: p.File, Line: p.Line, Column: LineColumn(p.File, p.Line)}
		t.Late = true
		t.SleptMs = ms(w.Dur)
		return &t
	}
	return nil
}

// heldForOverrun finds the goroutine whose holds by goweave's schedule within one span as
// long as the measurement add up to the most, when that is at least over: the goroutine, the
// sum and its longest hold.
func heldForOverrun(tr *trace.Trace, span, over time.Duration) (g uint64, total time.Duration, longest trace.Timed, ok bool) {
	byG := map[uint64][]trace.Timed{}
	for _, h := range tr.Timed {
		if h.Kind == trace.KindHold && h.Dur > 0 {
			byG[h.G] = append(byG[h.G], h)
		}
	}
	for id, hs := range byG {
		for _, last := range hs {
			// The holds that ended within span before last's end.
			var sum time.Duration
			var top trace.Timed
			for _, h := range hs {
				if h.End() <= last.End() && h.Start >= last.End()-int64(span) {
					sum += h.Dur
					if h.Dur > top.Dur {
						top = h
					}
				}
			}
			if sum >= over && sum > total {
				g, total, longest, ok = id, sum, top, true
			}
		}
	}
	return g, total, longest, ok
}

// waitedAfter reports whether sleep w's goroutine waited on the clock again or for another
// goroutine after w began: an operation after it during which another goroutine's operation
// was stamped (it parked), or one that never completed.
func waitedAfter(tr *trace.Trace, w trace.Timed) bool {
	for _, t := range tr.Timed {
		if t.Kind == trace.KindTimedWait && t.G == w.G && t.Stamp > w.Stamp {
			return true
		}
	}
	var mine []*trace.Event
	for i := range tr.Events {
		if e := &tr.Events[i]; e.G == w.G && e.Pre > w.Stamp {
			if e.Post == 0 {
				return true
			}
			if e.Post > e.Pre+1 {
				mine = append(mine, e)
			}
		}
	}
	for _, e := range mine {
		for i := range tr.Events {
			if o := &tr.Events[i]; o.G != w.G && o.Pre > e.Pre && o.Pre < e.Post {
				return true
			}
		}
	}
	return false
}

// measuredSummary is Summary for a wall-clock assertion (WaitKind "clock").
func (t *Timing) measuredSummary() string {
	at := fmt.Sprintf("%s:%d", filepath.Base(t.At.File), t.At.Line)
	if t.Late {
		return fmt.Sprintf("the test measured %s on the clock at %s where it allows %s, across its time.Sleep(%v) at %s:%d; %s did not wait for another goroutine after it: the machine delayed it %s (not goweave's schedule)",
			formatMs(t.MeasuredMs), at, formatMs(t.WaitMs), msDuration(t.SleptMs), filepath.Base(t.HeldAt.File), t.HeldAt.Line, t.goroutine(t.Delayed), formatMs(t.DelayedMs))
	}
	return fmt.Sprintf("the test measured %s on the clock at %s where it allows %s; %s was delayed %s by goweave's schedule (the longest hold before %s:%d), more than the %s over",
		formatMs(t.MeasuredMs), at, formatMs(t.WaitMs), t.goroutine(t.Delayed), formatMs(t.DelayedMs), filepath.Base(t.HeldAt.File), t.HeldAt.Line, formatMs(t.MeasuredMs-t.WaitMs))
}

// msDuration turns milliseconds back into a duration for printing (100 -> 100ms).
func msDuration(m float64) time.Duration {
	return time.Duration(math.Round(m * float64(time.Millisecond)))
}
