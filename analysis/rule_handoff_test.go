package analysis

import (
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// A read lock handed to a worker through a channel while another reader holds the same
// RWMutex: the worker's RUnlock releases the handed-over RLock (the hand-off orders it),
// not the other reader's, and no release is reported. Without the ordering (no hand-off)
// the release is still predicted.
func TestHandOffRUnlock(t *testing.T) {
	for _, handOff := range []bool{true, false} {
		b := tracetest.New()
		m := b.Main()
		rw := b.RWMutex()
		jobs := m.MakeChan(0, "h.go:5")
		w := m.Go("h.go:6")
		o := m.Go("h.go:7")
		m.RLock(rw, "h.go:8")
		o.RLock(rw, "h.go:20")
		if handOff {
			m.Send(jobs, "h.go:9")
			w.RecvBare(jobs, "h.go:12")
		}
		w.RUnlock(rw, "h.go:13")
		o.RUnlock(rw, "h.go:21")
		r := analyze(t, b)
		if handOff {
			wantNo(t, r, "unlock-of-unlocked")
		} else {
			want(t, r, "unlock-of-unlocked", Predicted, "h.go:13")
		}
	}
}
