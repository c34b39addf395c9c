package analysis

import (
	"testing"
	"time"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// The test goroutine waits in a select for a value nobody sends or its context's Done, and
// the run is stopped at its time limit with the GC's verdict that the goroutine is blocked
// for good. While the context's deadline timer (a function timer) is pending, the deadline
// may still end the wait: slow, not hung, no finding (survey 10's clockwork test). With the
// timer fired, or no timer at all, it is stuck.
func TestTimeLimitPendingDeadlineIsNotStuck(t *testing.T) {
	for _, tc := range []struct {
		name      string
		timer     bool
		fired     bool
		wantStuck bool
	}{
		{"deadline pending", true, false, false},
		{"deadline fired", true, true, true},
		{"no deadline", false, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tracetest.New().Meta("exit", "signal").Meta("signal", "3").Meta("testgoid", "1").Meta("timelimit", "1").Meta("leakgc", "1")
			m := b.Main()
			done := m.MakeLibChan(0, "context.go:10")
			never := m.MakeChan(0, "w_test.go:14")
			timer := b.Timer()
			set := b.Stamp()
			if tc.fired {
				b.TimerGo(timer, "context.go:20").End()
			}
			m.State(10, "select").Pending().Select("w_test.go:15", 0, tracetest.RecvCase(never), tracetest.RecvCase(done))
			tr := b.Trace()
			if tc.timer {
				tr.Timed = append(tr.Timed, trace.Timed{Kind: trace.KindTimedWait, Aux: trace.WaitTimerFunc, G: 1, Obj: timer, Stamp: set, Dur: 40 * time.Second})
			}
			r := Analyze(tr)
			if tc.wantStuck {
				if len(r.Findings) == 0 {
					t.Errorf("no finding; want the wait reported stuck")
				}
			} else {
				wantNo(t, r, "deadlock", "leak-select")
			}
		})
	}
}
