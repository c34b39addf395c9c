package mutate

import (
	"slices"
	"time"

	"github.com/goweave/goweave/analysis/trace"
)

// A flow delay holds its first operation until the second is admitted, for at most its
// window. When the second's goroutine slept (or waited on a timer) on its way there in the
// recorded run, a window shorter than that wait ends before the second comes, and the delay
// changes nothing: a test that holds a lock, sleeps 100 ms so that the other goroutine is
// past its check, then writes under the check's lock (amqp091-go's Reconnect against Close)
// had its one reversing delay end at 50 ms in every attempt, so goweave never saw the order
// in which the test passes (123 of 123 runs failed). A goroutine slower than a sleep is a
// schedule the runtime can produce; the window covers the recorded wait with room to spare.

// maxFlowWindow bounds a window stretched by a recorded wait: a delay whose second never
// comes costs its whole window.
const maxFlowWindow = 2 * time.Second

// flowWindow is the window of a delay of first until second in t: base, or, when longer,
// the timed waits that second's goroutine began on its way to second, half again and base
// on top. Those are the waits begun after that goroutine's last operation requested before
// first: a wait under way when first was requested counts (the test's sleep began just
// before the goroutine it waits for took its first lock).
func flowWindow(t *trace.Trace, first, second int, base time.Duration) time.Duration {
	a, b := &t.Events[first], &t.Events[second]
	waits := func(w *trace.Timed) bool {
		return w.Kind == trace.KindTimedWait && w.G == b.G && w.Aux != trace.WaitTicker && w.Stamp < b.Pre
	}
	if !slices.ContainsFunc(t.Timed, func(w trace.Timed) bool { return waits(&w) }) {
		return base // most pairs: no wait to cover, and no pass over the events
	}
	var since uint64
	for i := range t.Events {
		if e := &t.Events[i]; e.G == b.G && e.Pre < a.Pre {
			since = max(since, e.Pre)
		}
	}
	var waited time.Duration
	for i := range t.Timed {
		if w := &t.Timed[i]; waits(w) && w.Stamp > since {
			waited += w.Dur
		}
	}
	if waited <= 0 {
		return base
	}
	return min(max(base, waited+waited/2+base), maxFlowWindow)
}
