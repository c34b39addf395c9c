package analysis

import (
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// A worker preempted inside wg.Done, after the counter's change and before its record was
// completed, and not run again before the process exited, leaves its Done open (no post
// stamp), though the Wait it released returned (seen in a fuzzed run of a correct worker
// pool: the Done taken as never done left the worker's send unordered with the close after
// the Wait, a predicted send-on-closed). The reader completes such a record at its request.
func TestOpenDoneStillOrders(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	wg := b.WaitGroup()
	results := m.MakeChan(4, "p.go:15")
	m.Add(wg, 1, "p.go:18")
	w := m.Go("p.go:19")
	w.Send(results, "p.go:22")
	done := w.Pending().Done(wg, "p.go:20")
	c := m.Go("p.go:32")
	c.Wait(wg, "p.go:33")
	c.Close(results, "p.go:34")
	m.Recv(results, "p.go:37")
	r := analyze(t, b)
	if e := r.Trace.Events[done.Index]; !e.Completed() || e.Post != e.Pre {
		t.Errorf("the open Done reads as pre %d post %d; want it completed at its request", e.Pre, e.Post)
	}
	wantNo(t, r, "send-on-closed")
}
