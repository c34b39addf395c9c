package analysis

import (
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// A goroutine of a synctest bubble blocked forever on a nil channel: after the bubble
// ended (its caller went on: synctest.Test panicked "deadlock" and the test recovered it)
// it is synctest's verdict, not reported; while the caller is still parked in synctest.Run
// the bubble has not ended, and the leak is reported. Outside any bubble, reported.
func TestLeakOfEndedBubbleNotReported(t *testing.T) {
	for _, c := range []struct {
		name     string
		bubble   uint64
		ended    bool
		reported bool
	}{
		{"ended", 1, true, false},
		{"still in synctest.Run", 1, false, true},
		{"no bubble", 0, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := tracetest.New().Meta("testgoid", "1")
			m := b.Main()
			bm := m.GoBubble("", c.bubble)
			w := bm.GoBubble("p.go:5", c.bubble)
			w.Pending().Recv(tracetest.NilChan, "p.go:6")
			bm.End()
			if c.ended {
				m.End()
			} else {
				m.State(4, "synctest.Run")
			}
			r := analyze(t, b)
			n := 0
			for _, f := range r.Findings {
				if f.Kind == "leak-nil-chan" {
					n++
				}
			}
			if reported := n > 0; reported != c.reported {
				t.Errorf("leak-nil-chan reported %v, want %v; findings: %v", reported, c.reported, r.Findings)
			}
		})
	}
}
