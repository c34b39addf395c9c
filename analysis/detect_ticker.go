package analysis

import (
	"fmt"
	"slices"

	"github.com/goweave/goweave/analysis/trace"
)

// tickerLeaks finds goroutines that loop forever in a select woken only by a timer: a
// poller that selects on a ticker and on a context's Done channel, after the only path that
// cancelled the context was skipped. Its ticker keeps every channel of the select reachable,
// so neither the runtime nor the GC's leak detection sees it blocked for good; the trace
// does: at the end of a normally ended run the goroutine is still in (or between executions
// of) that select, every execution the run recorded was woken by a timer case (the evidence:
// each got a value a TimerFire of the runtime delivered, FORMAT.md), and its other
// cases are on channels a library made for it (a context's Done) that nothing ever closed or
// sent on. With `defer cancel()` the context is cancelled, the goroutine returns, and
// nothing is reported. A select with a case on a channel of the user's own (a stop channel
// a finalizer may still close) is not judged: whether something can still signal it is not
// in the trace.
func (r *Result) tickerLeaks(reported map[int32]bool) []leak {
	evs := r.Trace.Events
	last := make([]int32, len(r.Goroutines)) // goroutine -> its newest event + 1 (0: none)
	for i, g := range r.gOf {
		if g >= 0 {
			last[g] = int32(i) + 1
		}
	}
	var out []leak
	for g, n := range last {
		if n == 0 {
			continue
		}
		i := n - 1
		info := r.Goroutines[g]
		ev := &evs[i]
		if !info.Alive || info.Ended || ev.Kind != trace.KindSelect || reported[i] || ev.Pos == 0 {
			continue
		}
		timer, waits := r.tickerSelect(ev)
		if timer < 0 || waits < 0 {
			continue
		}
		wakes, fired := 0, 0
		woken := true
		for j := range evs {
			x := &evs[j]
			if x.Kind != trace.KindSelect || x.Pos != ev.Pos || r.gOf[j] != int32(g) || x.Post == 0 {
				continue
			}
			if !x.Flags.Has(trace.FlagSuccess) || x.A >= uint64(len(x.Cases)) || !r.isTimerChan(x.Cases[x.A].Obj) {
				woken = false
				break
			}
			wakes++
			if r.firedValue(x.Cases[x.A].Obj, x.B) {
				fired++
			}
		}
		if !woken || wakes == 0 {
			continue
		}
		if ev.Completed() && wakes < 2 {
			// One execution, completed, and nothing after it: the goroutine left the
			// select and the run ended before it did anything else (a one-shot
			// `select { case <-time.After(d): ...; case <-ctx.Done(): }`, woken by its
			// timer as the test returned). No loop is shown; a poller is judged once it
			// has come back to its select, blocked there or woken again.
			continue
		}
		related := []op{{"timer", timer}, {"never closed", waits}}
		out = append(out, leak{kind: "leak-select", ev: i, related: related, ticker: wakes, tickerFires: fired})
	}
	return out
}

// tickerSelect reports, for a select, the make of one of its timer channels and of one of
// its other channels, when every other case is on a library-made channel nothing closed or
// sent on (a context's Done that was never cancelled); -1 when the select is not of that
// shape.
func (r *Result) tickerSelect(ev *trace.Event) (timer, waits int32) {
	timer, waits = -1, -1
	for _, c := range ev.Cases {
		x, ok := r.eng.chanIdx[c.Obj]
		if c.Obj == 0 || !ok || c.Send {
			return -1, -1
		}
		ch := &r.eng.chans[x]
		switch {
		case r.isTimerChan(c.Obj):
			timer = ch.made
			if timer < 0 && len(ch.fires) > 0 { // (the make was not recorded: the fire names the timer's creation site)
				timer = slices.Max(ch.fires)
			}
		case ch.lib && ch.closeEv < 0 && len(ch.sendBySeq) == 0:
			waits = ch.made
		default:
			return -1, -1
		}
	}
	return timer, waits
}

// isTimerChan reports whether a channel is a timer's or ticker's: the runtime recorded a
// timer firing on it (TimerFire); or, in a trace without fires (an older recorder, or a
// timer made outside recorded code), made by a library for the user and received values
// that no recorded operation sent (the runtime sends on it).
func (r *Result) isTimerChan(obj uint64) bool {
	x, ok := r.eng.chanIdx[obj]
	if !ok {
		return false
	}
	ch := &r.eng.chans[x]
	if ch.fires != nil {
		return true
	}
	if !ch.lib || ch.closeEv >= 0 {
		return false
	}
	for k := range ch.recvBySeq {
		if bySeq(ch.sendBySeq, uint64(k+1)) < 0 {
			return true
		}
	}
	return false
}

// firedValue reports whether a TimerFire delivered the seq-th value of channel obj.
func (r *Result) firedValue(obj, seq uint64) bool {
	x, ok := r.eng.chanIdx[obj]
	return ok && bySeq(r.eng.chans[x].fires, seq) >= 0
}

// tickerWakes says how often the timer woke a ticker leak, and on what evidence. A wake
// whose value no recorded fire delivered (a ticker under load dropping or coalescing ticks,
// the last fire at the exit) leaves the others' evidence standing, counted as such.
func tickerWakes(l leak) string {
	switch {
	case l.ticker == 1 && l.tickerFires == 1:
		return "once, by a timer fire"
	case l.ticker == 1 || l.tickerFires == 0:
		if l.ticker == 1 {
			return "once"
		}
		return fmt.Sprintf("%d times", l.ticker)
	case l.tickerFires == l.ticker:
		return fmt.Sprintf("%d times, each by a timer fire", l.ticker)
	}
	return fmt.Sprintf("%d times, %d of them by a timer fire", l.ticker, l.tickerFires)
}
