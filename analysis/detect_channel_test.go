package analysis

import (
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// A request's send and a shutdown's close ordered only by a sleep.
func TestSendOnClosedPredicted(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	events := m.MakeChan(8, "s.go:29")
	w := m.Go("s.go:30")
	w.Send(events, "s.go:19")
	w.End()
	m.Close(events, "s.go:25")
	m.RecvOK(events, "s.go:32")
	m.RecvOK(events, "s.go:32") // range sees it closed
	r := analyze(t, b)
	f := want(t, r, "send-on-closed", Predicted, "s.go:19", "close=s.go:25")
	if f.Severity != SeverityWarning || !strings.Contains(f.Message, "s.go:19") || !strings.Contains(f.Message, "s.go:25") {
		t.Errorf("finding %+v", f)
	}
	if len(f.Goroutines) != 2 || f.Goroutines[0].Spawn != "s.go:30" || f.Goroutines[1].Spawn != "" {
		t.Errorf("goroutines %+v: want the sender (spawned at s.go:30) and the test goroutine", f.Goroutines)
	}
	wantNo(t, r, "recv-on-closed") // the range loop knows about closing
}

// The same send and close, ordered by a WaitGroup, a channel or a mutex hand-off: nothing.
func TestSendOnClosedOrdered(t *testing.T) {
	type order struct {
		before func(m *tracetest.G, b *tracetest.Builder) any
		after  func(m, w *tracetest.G, x any)
	}
	for name, o := range map[string]order{
		"waitgroup": {
			func(m *tracetest.G, b *tracetest.Builder) any {
				wg := b.WaitGroup()
				m.Add(wg, 1, "s.go:28")
				return wg
			},
			func(m, w *tracetest.G, x any) {
				w.Done(x.(tracetest.WaitGroup), "s.go:20")
				m.Wait(x.(tracetest.WaitGroup), "s.go:24")
			},
		},
		"channel": {
			func(m *tracetest.G, b *tracetest.Builder) any { return m.MakeChan(0, "s.go:28") },
			func(m, w *tracetest.G, x any) {
				w.Close(x.(tracetest.Chan), "s.go:20")
				m.RecvBare(x.(tracetest.Chan), "s.go:24")
			},
		},
		"mutex hand-off": {
			func(m *tracetest.G, b *tracetest.Builder) any { return b.Mutex() },
			func(m, w *tracetest.G, x any) {
				mu := x.(tracetest.Mutex)
				w.Lock(mu, "s.go:20")
				w.Unlock(mu, "s.go:21")
				m.Lock(mu, "s.go:24")
				m.Unlock(mu, "s.go:26")
			},
		},
	} {
		t.Run(name, func(t *testing.T) {
			b := tracetest.New()
			m := b.Main()
			events := m.MakeChan(8, "s.go:29")
			x := o.before(m, b)
			w := m.Go("s.go:30")
			w.Send(events, "s.go:19")
			o.after(m, w, x)
			m.Close(events, "s.go:25")
			wantNo(t, analyze(t, b))
		})
	}
}

func TestSendOnClosedActual(t *testing.T) {
	b := tracetest.New().Meta("exit", "panic").Meta("message", "send on closed channel")
	m := b.Main()
	c := m.MakeChan(1, "a.go:5")
	m.Close(c, "a.go:34")
	m.Send(c, "a.go:30")
	r := analyze(t, b)
	f := want(t, r, "send-on-closed", Actual, "a.go:30", "close=a.go:34")
	if f.Severity != SeverityError {
		t.Errorf("severity %s", f.Severity)
	}
}

// recv_on_closed_predicted: the receive of the final snapshot and the close in the
// shutdown hook are not ordered (the mutex orders flush before Close, not the receive).
func TestRecvOnClosedPredicted(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	mu := b.Mutex()
	final := m.MakeChan(1, "r.go:37")
	wg := b.WaitGroup()
	m.Add(wg, 2, "r.go:39")
	flush := m.Go("r.go:40")
	hook := m.Go("r.go:41")
	flush.Lock(mu, "r.go:22")
	flush.Send(final, "r.go:25")
	flush.Unlock(mu, "r.go:27")
	flush.Done(wg, "r.go:40")
	m.Recv(final, "r.go:46")
	hook.Lock(mu, "r.go:30")
	hook.Close(final, "r.go:33")
	hook.Unlock(mu, "r.go:34")
	hook.Done(wg, "r.go:45")
	m.Wait(wg, "r.go:48")
	r := analyze(t, b)
	want(t, r, "recv-on-closed", Predicted, "r.go:46", "close=r.go:33")
	wantNo(t, r, "send-on-closed", "mixed-deadlock", "concurrent-recv")
	// a comma-ok receive at the same place is not reported
	b2 := tracetest.New()
	m2 := b2.Main()
	c := m2.MakeChan(1, "r.go:37")
	h := m2.Go("r.go:41")
	h.Send(c, "r.go:25")
	m2.RecvOK(c, "r.go:46")
	h.Close(c, "r.go:33")
	wantNo(t, analyze(t, b2))
}

func TestRecvOnClosedActual(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	c := m.MakeChan(0, "a.go:5")
	m.Close(c, "a.go:33")
	m.Recv(c, "a.go:46")
	m.RecvBare(c, "a.go:47") // a signal wait: fine
	r := analyze(t, b)
	want(t, r, "recv-on-closed", Actual, "a.go:46", "close=a.go:33")
	if n := len(r.Findings); n != 1 {
		t.Errorf("%d findings, want 1: %v", n, summaries(r))
	}
}

func TestCloseOfClosedAndNil(t *testing.T) {
	b := tracetest.New().Meta("exit", "panic")
	m := b.Main()
	q := m.MakeChan(0, "a.go:15")
	m.Close(q, "a.go:33")
	m.Close(q, "a.go:38")
	m.Close(tracetest.NilChan, "a.go:40")
	r := analyze(t, b)
	want(t, r, "close-of-closed", Actual, "a.go:38", "first close=a.go:33")
	want(t, r, "close-of-nil", Actual, "a.go:40")
	if len(r.Findings) != 2 {
		t.Errorf("findings %v", summaries(r))
	}
}

// concurrent_recv: two callers take replies from one shared channel; each reply comes from
// its own goroutine.
func TestConcurrentRecv(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	requests := m.MakeChan(0, "c.go:37")
	replies := m.MakeChan(0, "c.go:37")
	srv := m.Go("c.go:39")
	c1 := m.Go("c.go:43")
	c2 := m.Go("c.go:44")
	c1.Send(requests, "c.go:32")
	srv.RecvOK(requests, "c.go:20")
	r1 := srv.Go("c.go:22")
	c2.Send(requests, "c.go:32")
	srv.RecvOK(requests, "c.go:20")
	r2 := srv.Go("c.go:22")
	r1.Send(replies, "c.go:24")
	c1.Recv(replies, "c.go:33")
	r2.Send(replies, "c.go:24")
	c2.Recv(replies, "c.go:33")
	r := analyze(t, b)
	f := want(t, r, "concurrent-recv", Actual, "c.go:33", "concurrent receive=c.go:33")
	if !strings.Contains(f.Message, "replies") && !strings.Contains(f.Message, "channel") {
		t.Errorf("message %q", f.Message)
	}
	if f.Severity != SeverityWarning { // a hazard the run exhibited, not a failure
		t.Errorf("severity %s", f.Severity)
	}
	wantNo(t, r, "send-on-closed", "recv-on-closed", "select-case-without-partner")
}

// Receives ordered by the program (the second caller asks after the first got its reply):
// not concurrent.
func TestConcurrentRecvOrdered(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	replies := m.MakeChan(0, "c.go:37")
	next := m.MakeChan(0, "c.go:38")
	s := m.Go("c.go:39")
	c1 := m.Go("c.go:43")
	c2 := m.Go("c.go:44")
	s.Send(replies, "c.go:24")
	c1.Recv(replies, "c.go:33")
	c1.Close(next, "c.go:34")
	c2.RecvBare(next, "c.go:46")
	s.Send(replies, "c.go:24")
	c2.Recv(replies, "c.go:33")
	wantNo(t, analyze(t, b))
}

// correct_shared_pool: workers range over one jobs channel: the pool, not a bug.
func TestSharedPoolIsNotConcurrentRecv(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	jobs := m.MakeChan(0, "p.go:14")
	results := m.MakeChan(4, "p.go:15")
	wg := b.WaitGroup()
	var workers []*tracetest.G
	for w := 0; w < 4; w++ {
		m.Add(wg, 1, "p.go:18")
		workers = append(workers, m.Go("p.go:19"))
	}
	prod := m.Go("p.go:26")
	closer := m.Go("p.go:32")
	for n := 0; n < 20; n++ {
		prod.Send(jobs, "p.go:28")
		w := workers[n%4]
		w.RecvOK(jobs, "p.go:21")
		w.Send(results, "p.go:22")
		m.RecvOK(results, "p.go:37")
	}
	prod.Close(jobs, "p.go:30")
	for _, w := range workers {
		w.RecvOK(jobs, "p.go:21")
		w.Done(wg, "p.go:20")
		w.End()
	}
	closer.Wait(wg, "p.go:33")
	closer.Close(results, "p.go:34")
	m.RecvOK(results, "p.go:37")
	r := analyze(t, b)
	wantNo(t, r)
	// the fuzzer still learns that the workers' receives are reorderable
	recvPairs := 0
	for _, p := range r.ConcurrentPairs() {
		if p.Kind == PairRecv {
			recvPairs++
		}
	}
	if recvPairs == 0 {
		t.Error("no concurrent receive pairs for flow fuzzing")
	}
}

// select_case_without_partner: the stop case's channel is never closed or sent on.
func TestSelectCaseWithoutPartner(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	wstop := m.MakeChan(0, "w.go:36")
	wdone := m.MakeChan(0, "w.go:36")
	mstop := m.MakeChan(0, "w.go:37")
	jobs := m.MakeChan(0, "w.go:38")
	w := m.Go("w.go:39")
	for i := 0; i < 3; i++ {
		m.Send(jobs, "w.go:41")
		w.Select("w.go:18", 0, tracetest.RecvValueCase(jobs), tracetest.RecvCase(wstop))
	}
	m.Close(mstop, "w.go:43")
	m.Close(jobs, "w.go:44")
	w.Select("w.go:18", 0, tracetest.RecvValueCase(jobs), tracetest.RecvCase(wstop))
	w.Close(wdone, "w.go:16")
	w.End()
	m.RecvBare(wdone, "w.go:45")
	r := analyze(t, b)
	f := want(t, r, "select-case-without-partner", Actual, "w.go:18", "channel made=w.go:36")
	if !strings.Contains(f.Message, "case 2") {
		t.Errorf("message %q should name case 2", f.Message)
	}
	if n := len(r.Findings); n != 1 {
		t.Errorf("findings %v", summaries(r))
	}
	var jobsCase, stopCase *SelectCase
	for _, c := range r.SelectPartners() {
		c := c
		switch c.Chan {
		case uint64(jobs):
			jobsCase = &c
		case uint64(wstop):
			stopCase = &c
		}
	}
	if jobsCase == nil || !jobsCase.Chosen || stopCase == nil || stopCase.HasPartner() || !stopCase.Known {
		t.Errorf("SelectPartners: jobs %+v stop %+v", jobsCase, stopCase)
	}
	for sel, cases := range r.SelectPartnersByEvent() {
		if len(cases) != 0 {
			t.Errorf("select %d: cases %v have no partner", sel, cases)
		}
	}
}

// A case whose partner comes later (a close after the select ran), a case on a channel made
// outside recorded code (ctx.Done()), and a nil case: none is reported.
func TestSelectCasePartners(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	updates := m.MakeChan(0, "s.go:30")
	stop := m.MakeChan(0, "s.go:31")
	ctxDone := b.ForeignChan(0)
	p := m.Go("s.go:32")
	p.Select("s.go:16", tracetest.Default, tracetest.RecvCase(ctxDone), tracetest.RecvValueCase(updates), tracetest.RecvCase(stop), tracetest.RecvCase(tracetest.NilChan))
	m.Send(updates, "s.go:33")
	p.Select("s.go:16", 1, tracetest.RecvCase(ctxDone), tracetest.RecvValueCase(updates), tracetest.RecvCase(stop), tracetest.RecvCase(tracetest.NilChan))
	m.Close(stop, "s.go:35")
	b.CloseForeign(ctxDone)
	p.Select("s.go:16", 0, tracetest.RecvCase(ctxDone), tracetest.RecvValueCase(updates), tracetest.RecvCase(stop), tracetest.RecvCase(tracetest.NilChan))
	p.End()
	r := analyze(t, b)
	wantNo(t, r)
	partners := map[uint64]SelectCase{}
	for _, c := range r.SelectPartners() {
		partners[c.Chan] = c
	}
	if c := partners[uint64(stop)]; c.Partner < 0 || r.Trace.Events[c.Partner].Kind.String() != "ChanClose" {
		t.Errorf("stop case partner %+v, want the close", c)
	}
	if c := partners[uint64(ctxDone)]; c.Known {
		t.Errorf("ctx.Done case %+v should be unknown", c)
	}
	if c := partners[uint64(updates)]; !c.Chosen {
		t.Errorf("updates case %+v should be chosen", c)
	}
	// per execution: the first select (default taken) could have taken ctx.Done() (0: taken
	// by a later execution), updates (1) and stop (2)
	byEvent := r.SelectPartnersByEvent()
	first := -1
	for i, e := range r.Trace.Events {
		if e.Kind.String() == "Select" {
			first = i
			break
		}
	}
	if got := byEvent[first]; len(got) != 3 || got[0] != 0 || got[1] != 1 || got[2] != 2 {
		t.Errorf("first select: cases with partners %v, want [0 1 2]", got)
	}
}

// A case without partner is not reported when the run was cut short (a panic) or when a
// goroutine of the test was still running or sleeping at the end: its partner may be late.
func TestSelectCaseWithoutPartnerCutShort(t *testing.T) {
	for _, how := range []string{"normal", "panic", "lingering"} {
		b := tracetest.New()
		if how == "panic" {
			b.Meta("exit", "panic")
		}
		m := b.Main()
		data := m.MakeChan(0, "w.go:1")
		late := m.MakeChan(1, "w.go:2")
		w := m.Go("w.go:3")
		s := m.Go("w.go:4")
		s.Send(data, "w.go:5")
		w.Select("w.go:6", 0, tracetest.RecvValueCase(data), tracetest.RecvCase(late))
		w.End()
		if how == "lingering" {
			s.State(4, "sleep") // would have sent on late after its sleep
		} else {
			s.End()
		}
		r := analyze(t, b)
		if how == "normal" {
			want(t, r, "select-case-without-partner", Actual, "w.go:6")
		} else {
			wantNo(t, r, "select-case-without-partner")
		}
	}
}

// With dropped events only what happened is reported: the relation may miss edges.
func TestDroppedEventsKeepOnlyActual(t *testing.T) {
	b := tracetest.New().Meta("dropped", "12")
	m := b.Main()
	c := m.MakeChan(1, "d.go:1")
	w := m.Go("d.go:2")
	w.Send(c, "d.go:3")
	m.Close(c, "d.go:4")
	m.Close(c, "d.go:5")
	r := analyze(t, b)
	want(t, r, "close-of-closed", Actual, "d.go:5")
	wantNo(t, r, "send-on-closed")
}

// Per-call channels (semaphore waiters): one call's ready channel is closed, a cancelled
// call's is abandoned. The case is alive at that select statement: nothing to report. A try
// (select with default) whose case never fires is not reported either.
func TestSelectCasePerCallChannelAndTry(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	done := b.ForeignChan(0)
	rel := m.Go("s.go:1")
	for call := 0; call < 2; call++ {
		ready := m.MakeChan(0, "s.go:75")
		if call == 0 {
			rel.Close(ready, "s.go:120")
			m.Select("s.go:80", 1, tracetest.RecvCase(done), tracetest.RecvCase(ready))
		} else {
			b.CloseForeign(done)
			m.Select("s.go:80", 0, tracetest.RecvCase(done), tracetest.RecvCase(ready))
		}
	}
	sem := m.MakeChan(0, "s.go:150")
	m.Select("s.go:111", tracetest.Default, tracetest.SendCase(sem))
	rel.End()
	r := analyze(t, b)
	wantNo(t, r)
}

// The only execution of a select took ctx.Done(): the abandoned per-call channel might have
// been served had the cancellation come later. Not reported; a select that took a recorded
// channel's case instead is.
func TestSelectDecidedByCancellation(t *testing.T) {
	for _, cancelled := range []bool{true, false} {
		b := tracetest.New()
		m := b.Main()
		done := b.ForeignChan(0)
		other := m.MakeChan(0, "s.go:70")
		ready := m.MakeChan(0, "s.go:75")
		w := m.Go("s.go:76")
		if cancelled {
			b.CloseForeign(done)
			m.Select("s.go:80", 0, tracetest.RecvCase(done), tracetest.RecvCase(ready))
		} else {
			w.Close(other, "s.go:77")
			m.Select("s.go:80", 0, tracetest.RecvCase(other), tracetest.RecvCase(ready))
		}
		w.End()
		r := analyze(t, b)
		if cancelled {
			wantNo(t, r)
		} else {
			want(t, r, "select-case-without-partner", Actual, "s.go:80")
		}
	}
}

// A consumer that takes exactly the values a producer sent before closing never sees the
// channel closed, however the receives and the close interleave.
func TestRecvOfValuesSentBeforeClose(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	c := m.MakeChan(3, "p.go:1")
	p := m.Go("p.go:2")
	p.Send(c, "p.go:3")
	p.Send(c, "p.go:3")
	m.Recv(c, "p.go:10") // before the close in this run
	p.Send(c, "p.go:3")
	p.Close(c, "p.go:4")
	m.Recv(c, "p.go:11") // after the close, from the buffer
	m.Recv(c, "p.go:11")
	wantNo(t, analyze(t, b))
}
