package analysis

import (
	"testing"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// A notifier offers a value under a lock with a select that has a default case; the
// subscriber took that lock before its receive. The select communicated in this run, but it
// never waits, so holding the lock across it cannot deadlock: not a mixed deadlock. The same
// offer as a plain (blocking) send is.
func TestMixedDeadlockNonBlockingSelect(t *testing.T) {
	for _, withDefault := range []bool{true, false} {
		b := tracetest.New()
		m := b.Main()
		mu := b.Mutex()
		events := m.MakeChan(0, "n.go:34")
		sub := m.Go("n.go:36")
		sub.Lock(mu, "n.go:28")
		sub.Unlock(mu, "n.go:30")
		recv := sub.Pending().Select("n.go:31", 0, tracetest.RecvValueCase(events))
		m.Lock(mu, "n.go:18")
		send := m.Select("n.go:22", 0, tracetest.SendCase(events))
		if withDefault {
			send.Event().Flags |= trace.FlagNonBlocking
		}
		recv.Complete()
		m.Unlock(mu, "n.go:26")
		r := analyze(t, b)
		if withDefault {
			wantNo(t, r, "mixed-deadlock")
		} else {
			want(t, r, "mixed-deadlock", Predicted, "n.go:22", "partner's lock=n.go:28", "held lock=n.go:18")
		}
	}
}

// Survey 8 rerun, watermill's gochannel subscriber: a sender holds s.sending across a
// select on the output channel and s.closing; the subscriber's Close closed s.closing and
// then waits for s.sending. The select was requested after that close and never completed:
// the schedule held its goroutine before it looked at its cases when the process exited
// (a failed test), since a closed channel's receive never parks. Not a mixed deadlock, and
// the Locks waiting for its lock are no leak. The same select requested before the close
// (nothing woke it: the close is not in the trace) is still one.
func TestMixedDeadlockSelectOnClosedChannelHeld(t *testing.T) {
	for _, closedFirst := range []bool{true, false} {
		b := tracetest.New()
		m := b.Main()
		mu := b.Mutex()
		out := m.MakeChan(0, "p.go:207")
		closing := m.MakeChan(0, "p.go:209")
		sender := m.Go("p.go:171")
		closer := m.Go("p.go:213")
		other := m.Go("p.go:171")
		sender.Lock(mu, "p.go:392")
		if closedFirst {
			closer.Close(closing, "p.go:358")
		}
		sender.Pending().Select("p.go:399", 0, tracetest.SendCase(out), tracetest.RecvCase(closing))
		closer.Pending().Lock(mu, "p.go:363")
		other.Pending().Lock(mu, "p.go:392")
		r := analyze(t, b)
		if closedFirst {
			wantNo(t, r, "mixed-deadlock", "leak-mutex")
		} else {
			want(t, r, "mixed-deadlock", Actual, "p.go:399", "partner's lock=p.go:363", "held lock=p.go:392")
		}
	}
}
