package analysis

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/goweave/goweave/analysis/trace"
)

// A select that passed over a ready partner until its clock's case came. goweave's select
// preferences hold a select for one case; when the other case's partner arrives only after
// the select first looked, the runtime records no hold (FORMAT.md: a preference is recorded
// when another case was ready at a look), yet the select waits until its preferred case
// comes. When that case is a clock's (a context's Done channel its deadline closed, a
// timer's channel) and another goroutine's operation that would have completed another case
// was pending from before the clock ran out until after the select took the clock's case,
// the select was kept from a ready partner by the schedule until the wait expired: the
// events alone show it (the partner's request precedes the close or the fire, its
// completion, if any, follows the select's).

// passedOverOf returns the evidence of such a select, nil when there is none; the longest
// wait is named.
func passedOverOf(tr *trace.Trace, rel *timingRelation, waits []trace.Timed, reset map[uint64]bool) *Timing {
	rel.index()
	// The stamp at which each clock's channel became ready, and its wait.
	type clock struct {
		at   uint64
		wait trace.Timed
	}
	fires := map[uint64][]uint64{} // a channel timer's channel -> its fires' stamps, in order
	spawns := map[uint64]uint64{}  // a function timer -> the goroutine its fire started
	for i := range tr.Events {
		switch e := &tr.Events[i]; {
		case e.Kind == trace.KindTimerFire:
			fires[e.Obj] = append(fires[e.Obj], e.Pre)
		case e.Kind == trace.KindGoSpawn && e.G == 0 && e.Obj != 0:
			spawns[e.Obj] = e.A
		}
	}
	clocks := map[uint64]clock{}
	timers := map[uint64]bool{} // the channel timers that fired: their clocks are per select (clockAt)
	for _, w := range waits {
		switch w.Aux {
		case trace.WaitTimerChan:
			if len(fires[w.Obj]) > 0 {
				timers[w.Obj] = true
			}
		case trace.WaitTimerFunc:
			g, ok := spawns[w.Obj]
			if !ok {
				continue
			}
			for _, j := range rel.byG[g] {
				if c := &tr.Events[j]; c.Kind == trace.KindChanClose {
					if old, ok := clocks[c.Obj]; !ok || c.Pre < old.at {
						clocks[c.Obj] = clock{c.Pre, w}
					}
				}
			}
		}
	}
	if len(clocks) == 0 && len(timers) == 0 {
		return nil
	}
	// clockAt is the clock of a channel timer's channel ch for a select requested at stamp
	// pre: its setting before the select (a Reset is one) and the first fire after that.
	clockAt := func(ch, pre uint64) (clock, bool) {
		w, ok := settingBefore(waits, ch, pre)
		if !ok {
			return clock{}, false
		}
		fs := fires[ch]
		j, _ := slices.BinarySearch(fs, w.Stamp+1)
		if j == len(fs) {
			return clock{}, false
		}
		return clock{fs[j], w}, true
	}
	var best *Timing
	var byObj map[uint64][]int // the channel operations (and selects) on each channel, once needed
	for i := range tr.Events {
		e := &tr.Events[i]
		if e.Kind != trace.KindSelect || !e.Completed() || e.A == trace.SelectDefault {
			continue
		}
		var cl clock
		found := false
		for _, c := range e.Cases {
			if c.Index == int(e.A) && !c.Send {
				if timers[c.Obj] {
					cl, found = clockAt(c.Obj, e.Pre)
				} else {
					cl, found = clocks[c.Obj]
				}
			}
		}
		if !found || e.Pre >= cl.at || best != nil && ms(cl.wait.Dur) <= best.WaitMs {
			continue
		}
		if byObj == nil {
			byObj = channelOps(tr)
		}
		p := pendingPartner(tr, byObj, e, cl.at)
		if p == nil {
			continue
		}
		at, sel, partner := tr.Position(cl.wait.Pos), tr.Position(e.Pos), tr.Position(p.Pos)
		if at.File == "" || sel.File == "" || partner.File == "" {
			continue
		}
		d := roundUp2(cl.wait.Dur)
		wait, kind := timerWait(cl.wait, d, reset[cl.wait.Stamp])
		best = &Timing{
			Wait: wait, WaitKind: kind, WaitMs: ms(d),
			At:        Position{Role: "wait", File: at.File, Line: at.Line, Column: LineColumn(at.File, at.Line)},
			Waiter:    timingGoroutine(tr, cl.wait.G),
			Delayed:   timingGoroutine(tr, e.G),
			HeldAt:    Position{Role: "held", File: sel.File, Line: sel.Line, Column: LineColumn(sel.File, sel.Line)},
			Partner:   &Position{Role: "partner", File: partner.File, Line: partner.Line, Column: LineColumn(partner.File, partner.Line)},
			PartnerID: p.G,
		}
	}
	return best
}

// pendingPartner is another goroutine's operation that would complete a case of select e
// other than the one it took (a send for a receive case, a receive for a send case, as an
// operation or a select's case), requested before stamp clock and not completed before e
// was; nil when there is none.
func pendingPartner(tr *trace.Trace, byObj map[uint64][]int, e *trace.Event, clock uint64) *trace.Event {
	for _, c := range e.Cases {
		if c.Index == int(e.A) || c.Obj == 0 {
			continue
		}
		for _, i := range byObj[c.Obj] {
			p := &tr.Events[i]
			if p.G == e.G || p.Pre >= clock || p.Completed() && p.Post < e.Post {
				continue
			}
			switch p.Kind {
			case trace.KindChanSend:
				if !c.Send && p.Obj == c.Obj {
					return p
				}
			case trace.KindChanRecv:
				if c.Send && p.Obj == c.Obj {
					return p
				}
			case trace.KindSelect:
				for _, pc := range p.Cases {
					if pc.Obj == c.Obj && pc.Send != c.Send {
						return p
					}
				}
			}
		}
	}
	return nil
}

// channelOps indexes the sends, receives and selects of tr by the channels they use.
func channelOps(tr *trace.Trace) map[uint64][]int {
	out := map[uint64][]int{}
	for i := range tr.Events {
		switch e := &tr.Events[i]; e.Kind {
		case trace.KindChanSend, trace.KindChanRecv:
			out[e.Obj] = append(out[e.Obj], i)
		case trace.KindSelect:
			for _, c := range e.Cases {
				if c.Obj != 0 && (len(out[c.Obj]) == 0 || out[c.Obj][len(out[c.Obj])-1] != i) {
					out[c.Obj] = append(out[c.Obj], i)
				}
			}
		}
	}
	return out
}

// passedSummary is Summary for a select that passed over a ready partner (Partner).
func (t *Timing) passedSummary() string {
	who := t.waiterName()
	return fmt.Sprintf("%s waits with %s at %s:%d; goweave's schedule kept the select at %s:%d of %s from goroutine %d's operation at %s:%d, ready before the wait expired, until its clock's case came",
		who, t.Wait, filepath.Base(t.At.File), t.At.Line, filepath.Base(t.HeldAt.File), t.HeldAt.Line, t.goroutine(t.Delayed), t.PartnerID, filepath.Base(t.Partner.File), t.Partner.Line)
}
