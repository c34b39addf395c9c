package analysis

import (
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// cutPathRun is one run of survey 11's go-quartz TestScheduler_PauseResume shape: the
// scheduler's loop goroutine interrupts itself (a send at sched.go:774) after each job; the
// test goroutine later pauses the job, which looks it up (a Lock at queue.go:185) and
// interrupts the loop too (774). A failing run fails its assertion (t.Fatal) before the
// pause: the test goroutine never reaches 185. With libY the lookup is the loop goroutine's,
// before its sends, in the passing runs only (a line the failure did not cut off: the loop
// took another path in the failing runs).
func cutPathRun(ls *OrderLines, failed, libY bool) RunOrder {
	b := tracetest.New()
	m := b.Main()
	test := b.Test()
	intr := m.MakeChan(1, "sched.go:289")
	queue := b.Mutex()
	loop := m.Go("sched.go:369")
	if libY && !failed {
		loop.Lock(queue, "queue.go:185")
		loop.Unlock(queue, "queue.go:186")
	}
	for range 4 {
		loop.Send(intr, "sched.go:774")
		m.Recv(intr, "sched.go:570")
	}
	switch {
	case failed:
		m.TestUse(test, tracetest.TFatal, "sched_test.go:526")
	case !libY:
		m.Lock(queue, "queue.go:185")
		m.Unlock(queue, "queue.go:186")
		m.Send(intr, "sched.go:774")
		loop.Recv(intr, "sched.go:570")
	}
	m.TestEnd(test, "sched_test.go:507")
	return ls.OrderOf(b.Trace(), nil)
}

// A line the test goroutine reaches only after the point where the failing runs reported
// their failure is missing from every failing run because the failure ended that path, not
// because of any order: "x ran and y never did" is no evidence then, and nothing is named
// (survey 11: "the send at scheduler.go:774 came while the Lock at queue.go:185 had not run
// yet", 4 of 4 failing runs against 0 of 11, for a test whose failure is a count after a
// sleep). The same absence on a goroutine the failure did not stop is still named.
func TestOrderCausesIgnoreLinesTheFailureCutOff(t *testing.T) {
	for _, libY := range []bool{false, true} {
		var ls OrderLines
		var failing, passing []RunOrder
		for range 6 {
			failing = append(failing, cutPathRun(&ls, true, libY))
		}
		for range 10 {
			passing = append(passing, cutPathRun(&ls, false, libY))
		}
		got := ls.OrderCauses(failing, passing)
		if !libY {
			for _, c := range got {
				if c.Then.Line == 185 || c.First.Line == 185 {
					t.Errorf("test goroutine's line after the failure named: %+v", c)
				}
			}
			continue
		}
		found := false
		for _, c := range got {
			if c.First.Line == 774 && c.Then.Line == 185 {
				found = true
			}
		}
		if !found {
			t.Errorf("loop goroutine's lookup that never ran: causes %+v, want 774 while 185 had not run", got)
		}
	}
}
