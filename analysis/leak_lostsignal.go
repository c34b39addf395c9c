package analysis

import (
	"fmt"
	"strings"

	"github.com/goweave/goweave/analysis/trace"
)

// lostSignalRule is the rule markLostSignal applies, shown in the receive leaks' docs.
const lostSignalRule = `A goroutine blocked receiving from an unbuffered channel (or in a select with a receive
case on it) on which the package's code made a non-blocking send (select { case ch <- v:
default: }) that took its default before the goroutine began to wait, waits for a signal
the package sent and dropped: a lost signal, the package's leak (an error), even when the
test made the object and never closed it (wayOutRule): its close would only hide the lost
signal. The finding names the dropped send as related ("dropped send"). A buffered channel
is not judged: a send there is dropped only while the buffer is full, so a value is still
pending for the receiver (the signals were merged, not lost). A channel nobody sent on,
or whose only dropped sends are the test's, stays as wayOutRule says.`

// markLostSignal marks the receive leaks that wait for a signal the package dropped
// (lostSignalRule): not test-only, whatever the test left open.
func (r *Result) markLostSignal(leaks []leak) {
	evs := r.Trace.Events
	var drops map[uint64][]int32 // channel -> its dropped non-blocking sends, in trace order
	for k := range leaks {
		l := &leaks[k]
		ev := &evs[l.ev]
		objs := l.receivesFrom(ev)
		if len(objs) == 0 {
			continue
		}
		if drops == nil {
			drops = r.droppedSends()
		}
		best := int32(-1)
		for _, o := range objs {
			if m, ok := r.makeEvent(o); !ok || evs[m].A != 0 {
				continue // unknown or buffered: a dropped send left a value pending
			}
			for _, d := range drops[o] {
				if evs[d].Post < ev.Pre && (best < 0 || evs[d].Post > evs[best].Post) {
					best = d
				}
			}
		}
		if best < 0 {
			continue
		}
		l.dropped = best + 1
		l.testOnly, l.testMade = false, false
		l.related = append(l.related, op{"dropped send", best})
	}
}

// droppedSends maps each channel to the completed non-blocking selects of the package's
// code (not a _test.go file) that offered a send on it and took their default.
func (r *Result) droppedSends() map[uint64][]int32 {
	out := map[uint64][]int32{}
	for i := range r.Trace.Events {
		ev := &r.Trace.Events[i]
		if ev.Kind != trace.KindSelect || !ev.Flags.Has(trace.FlagNonBlocking) || ev.A != trace.SelectDefault ||
			ev.Post == 0 || ev.Pos == 0 || strings.HasSuffix(r.Trace.Position(ev.Pos).File, "_test.go") {
			continue
		}
		for _, c := range ev.Cases {
			if c.Send && c.Obj != 0 {
				out[c.Obj] = append(out[c.Obj], int32(i))
			}
		}
	}
	return out
}

// lostSignalText is the message part of a leak whose signal was dropped.
func (r *Result) lostSignalText(l leak) string {
	d := l.dropped - 1
	return fmt.Sprintf("; the non-blocking send at %s (by %s) took its default before this goroutine was waiting: the signal was lost, the package's leak whatever the test left open",
		r.at(d), r.spawnedAt(d))
}
