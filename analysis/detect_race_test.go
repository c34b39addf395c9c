package analysis

import (
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// A pool whose Go calls wg.Add inside the goroutine it starts (p.go:14), and whose Wait
// (p.go:22) nothing orders after that Add: a race on the WaitGroup, reported at the Add
// with the Wait. Here the worker's Add and Done ran before the Wait: a prediction (the
// Wait can run first and return at once).
func TestAddWaitRacePredicted(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	wg := b.WaitGroup()
	w := m.Go("p.go:13")
	w.Add(wg, 1, "p.go:14")
	w.Done(wg, "p.go:15")
	w.End()
	m.Wait(wg, "p.go:22")
	r := analyze(t, b)
	want(t, r, "data-race", Predicted, "p.go:14", "wait=p.go:22")
	if len(r.Findings) != 1 {
		t.Errorf("findings %v", summaries(r))
	}
}

// The race detector's schedule: the Add, then a Wait entered with the work counted, which
// blocks until the Done. Nothing but the group itself orders the Add before the Wait's
// entry: it happened.
func TestAddWaitRaceActualBlocked(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	wg := b.WaitGroup()
	w := m.Go("p.go:13")
	w.Add(wg, 1, "p.go:14")
	wait := m.Pending().Wait(wg, "p.go:22")
	w.Done(wg, "p.go:15")
	w.End()
	wait.Complete()
	want(t, analyze(t, b), "data-race", Actual, "p.go:14", "wait=p.go:22")
}

// The Wait ran first, at a zero counter, and returned; the worker's Add came after: the
// Wait did not wait for its work.
func TestAddWaitRaceActualWaitFirst(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	wg := b.WaitGroup()
	w := m.Go("p.go:13")
	m.Wait(wg, "p.go:22")
	w.Add(wg, 1, "p.go:14")
	w.Done(wg, "p.go:15")
	w.End()
	want(t, analyze(t, b), "data-race", Actual, "p.go:14", "wait=p.go:22")
}

// Correct uses report nothing: the Add before the go statement; a worker's nested Add while
// its own unit keeps the counter above zero; an Add in the goroutine ordered before the
// Wait by a channel; a group reused round after round by one goroutine.
func TestAddWaitOrdered(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	wg := b.WaitGroup()
	m.Add(wg, 1, "c.go:10")
	w := m.Go("c.go:11")
	w.Add(wg, 1, "c.go:12") // nested: the counter is 1
	sub := w.Go("c.go:13")
	w.Done(wg, "c.go:14")
	w.End()
	sub.Done(wg, "c.go:15")
	sub.End()
	m.Wait(wg, "c.go:16")
	wantNo(t, analyze(t, b))

	b = tracetest.New()
	m = b.Main()
	wg = b.WaitGroup()
	started := m.MakeChan(0, "c.go:20")
	w = m.Go("c.go:21")
	w.Add(wg, 1, "c.go:22")
	w.Send(started, "c.go:23")
	m.Recv(started, "c.go:25")
	w.Done(wg, "c.go:24")
	w.End()
	m.Wait(wg, "c.go:26")
	wantNo(t, analyze(t, b))

	b = tracetest.New()
	m = b.Main()
	wg = b.WaitGroup()
	for range 3 {
		m.Add(wg, 1, "c.go:30")
		w := m.Go("c.go:31")
		w.Done(wg, "c.go:32")
		w.End()
		m.Wait(wg, "c.go:33")
	}
	wantNo(t, analyze(t, b))
}
