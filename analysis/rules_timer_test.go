package analysis

import (
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// A timer's fire orders what its maker did before setting it before the receive that gets
// the fire's value; what the maker does after the set stays concurrent with it. Without the
// fire (a trace of an older recorder) the receive learns nothing.
func TestRuleTimerFire(t *testing.T) {
	for _, fired := range []bool{true, false} {
		b := tracetest.New()
		m := b.Main()
		w := m.Go("t.go:2")
		c := m.MakeChan(4, "t.go:3")
		before := m.Send(c, "t.go:4")
		mk := m.MakeLibChan(1, "t.go:5") // time.NewTimer
		after := m.Send(c, "t.go:6")
		if fired {
			b.TimerFire(mk, "t.go:5")
		} else {
			b.SendForeign(mk)
		}
		recv := w.Recv(mk, "t.go:10")
		if fired {
			hb(t, b, [][2]*tracetest.Op{{before, recv}}, [][2]*tracetest.Op{{after, recv}})
		} else {
			hb(t, b, nil, [][2]*tracetest.Op{{before, recv}, {after, recv}})
		}
	}
}
