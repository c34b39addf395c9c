package analysis

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/goweave/goweave/analysis/trace"
)

// Timers set more than once. A Timer.Reset (or Ticker.Reset) is a TimedWait of its own, with
// its new duration, on the object of the timer's first record (FORMAT.md): an expiration
// loop's `timer.Reset(ttl)` is the clock its cache's TTL runs on. Each setting of a timer is a
// wait of its own: it expired when the timer fired after it and before the timer was set
// again; a setting the next one replaced before any fire never expired (a Reset of a timer
// not yet fired takes it back), and is dropped, so that the rules see one wait per fire and
// a loop resetting an idle timer on every message adds nothing to examine.

// timerSettings are waits without the timer settings that a later one replaced before the
// timer fired, with the settings that expired (a fire of the timer after it and before the
// next setting) and those that are a Reset (not the timer's first record), by stamp.
func timerSettings(tr *trace.Trace, waits []trace.Timed) (kept []trace.Timed, expired, reset map[uint64]bool) {
	expired, reset = map[uint64]bool{}, map[uint64]bool{}
	byObj := map[uint64][]int{} // each timer's settings, in stamp order
	for i, w := range waits {
		if w.Aux == trace.WaitTimerChan || w.Aux == trace.WaitTimerFunc {
			byObj[w.Obj] = append(byObj[w.Obj], i)
		}
	}
	if len(byObj) == 0 {
		return waits, expired, reset
	}
	fires := timerFires(tr)
	drop := map[int]bool{}
	for obj, idx := range byObj {
		slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(waits[a].Stamp, waits[b].Stamp) })
		fs := fires[obj]
		for k, i := range idx {
			from, to := waits[i].Stamp, ^uint64(0)
			if k+1 < len(idx) {
				to = waits[idx[k+1]].Stamp
			}
			if k > 0 {
				reset[from] = true
			}
			// The first fire after the setting (fs is in stamp order).
			j, _ := slices.BinarySearch(fs, from+1)
			switch {
			case j < len(fs) && fs[j] < to:
				expired[from] = true
			case k+1 < len(idx):
				drop[i] = true
			}
		}
	}
	if len(drop) == 0 {
		return waits, expired, reset
	}
	kept = make([]trace.Timed, 0, len(waits)-len(drop))
	for i, w := range waits {
		if !drop[i] {
			kept = append(kept, w)
		}
	}
	return kept, expired, reset
}

// timerFires are the stamps, in order, at which each timer of tr showed that it fired: a
// channel timer's value sent (its TimerFire) or taken (a value receive from it, by a receive
// or a select, completed: the runtime sees no fire of a timer under asynctimerchan=1), a
// function timer's goroutine started (a GoSpawn of no goroutine, the timer its object).
func timerFires(tr *trace.Trace) map[uint64][]uint64 {
	out := map[uint64][]uint64{}
	for i := range tr.Events {
		e := &tr.Events[i]
		switch {
		case e.Kind == trace.KindTimerFire, e.Kind == trace.KindGoSpawn && e.G == 0 && e.Obj != 0:
			out[e.Obj] = append(out[e.Obj], e.Pre)
		case e.Kind == trace.KindChanRecv && e.Completed() && !e.Flags.Has(trace.FlagClosed):
			out[e.Obj] = append(out[e.Obj], e.Post)
		case e.Kind == trace.KindSelect && e.Completed() && e.A != trace.SelectDefault && !e.Flags.Has(trace.FlagClosed):
			for _, c := range e.Cases {
				if c.Index == int(e.A) && !c.Send {
					out[c.Obj] = append(out[c.Obj], e.Post)
				}
			}
		}
	}
	for _, s := range out {
		slices.Sort(s)
	}
	return out
}

// settingBefore is the last setting in waits of channel timer ch recorded before stamp,
// false when there is none.
func settingBefore(waits []trace.Timed, ch uint64, stamp uint64) (trace.Timed, bool) {
	var best trace.Timed
	found := false
	for _, w := range waits {
		if w.Aux == trace.WaitTimerChan && w.Obj == ch && w.Stamp < stamp && (!found || w.Stamp > best.Stamp) {
			best, found = w, true
		}
	}
	return best, found
}

// timerWait says what timer wait w waits with, and its WaitKind, d its duration as shown;
// reset: w is a Reset of the timer.
func timerWait(w trace.Timed, d time.Duration, reset bool) (wait, kind string) {
	to := "to " + d.String()
	if d <= 1 {
		to = "already due when it was reset"
	}
	switch {
	case w.Aux == trace.WaitTimerChan && reset:
		return fmt.Sprintf("a timer reset %s (Timer.Reset)", to), "timer"
	case w.Aux == trace.WaitTimerChan:
		return fmt.Sprintf("a timer %s (time.After or time.NewTimer)", timerDur(d)), "timer"
	case reset:
		return fmt.Sprintf("a timer reset %s (Timer.Reset of a time.AfterFunc)", to), "func-timer"
	}
	return fmt.Sprintf("a timer %s (time.AfterFunc or a context's deadline)", timerDur(d)), "func-timer"
}
