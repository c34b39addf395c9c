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
