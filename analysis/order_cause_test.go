package analysis

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// checkRun is one run of a check-then-act: the worker's check (conn.go:22-23) and the
// test goroutine's Close (conn.go:29-31) lock one mutex, checkFirst says in which order;
// two other goroutines lock another mutex in an order of their own (noise.go, noiseFirst);
// a failing run calls t.Fatal, then locks at after.go:1 (past the failure: not counted);
// failPath adds lines only a failing run reaches (conn.go:39-40).
func checkRun(ls *OrderLines, checkFirst, noiseFirst, failed, failPath bool) RunOrder {
	b := tracetest.New()
	m := b.Main()
	test := b.Test()
	mu, noise, after := b.Mutex(), b.Mutex(), b.Mutex()
	w := m.Go("conn_test.go:5")
	check := func() { w.Lock(mu, "conn.go:22"); w.Unlock(mu, "conn.go:23") }
	closeIt := func() { m.Lock(mu, "conn.go:29"); m.Unlock(mu, "conn.go:31") }
	if checkFirst {
		check()
		closeIt()
	} else {
		closeIt()
		check()
	}
	n1, n2 := m.Go("noise.go:1"), m.Go("noise.go:2")
	if !noiseFirst {
		n1, n2 = n2, n1
	}
	n1.Lock(noise, "noise.go:10")
	n1.Unlock(noise, "noise.go:11")
	n2.Lock(noise, "noise.go:20")
	n2.Unlock(noise, "noise.go:21")
	if failPath {
		w.Lock(mu, "conn.go:39")
		w.Unlock(mu, "conn.go:40")
	}
	if failed {
		m.TestUse(test, tracetest.TFatal, "conn_test.go:9")
	}
	m.Lock(after, "after.go:1")
	m.Unlock(after, "after.go:2")
	m.TestEnd(test, "conn_test.go:1")
	return ls.OrderOf(b.Trace(), nil)
}

func TestOrderCausesNamesTheOrderThatSeparates(t *testing.T) {
	var ls OrderLines
	var failing, passing []RunOrder
	for i := range 8 {
		failing = append(failing, checkRun(&ls, true, i%2 == 0, true, true))
	}
	for i := range 20 {
		passing = append(passing, checkRun(&ls, false, i%2 == 0, false, false))
	}
	got := ls.OrderCauses(failing, passing)
	if len(got) != 1 {
		t.Fatalf("causes %+v, want one", got)
	}
	c := got[0]
	if c.First.Line != 22 || c.Then.Line != 29 || c.FailingHad != 8 || c.PassingHad != 0 || c.PassingOther != 20 || c.ThenRan != 8 {
		t.Errorf("cause %+v, want conn.go:22 before conn.go:29 in 8 of 8 failing, 0 of 20 passing", c)
	}
	msg, pos := c.Describe()
	for _, want := range []string{"the Lock at conn.go:22 came before the Lock at conn.go:29, on one mutex, in all 8 failing runs and in none of the 20 passing runs", "chance of such a split were the order unrelated to the failure: p < 1e-6"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q, want %q", msg, want)
		}
	}
	if len(pos) != 2 || pos[0].Line != 22 || !strings.HasPrefix(pos[0].Role, "cause: ") || pos[1].Line != 29 {
		t.Errorf("positions %+v, want 22 (cause) and 29", pos)
	}
}

// A failure that does not depend on the order: the same orders in failing and passing
// runs, and too few failing runs, name nothing.
func TestOrderCausesNamesNothingWithoutASplit(t *testing.T) {
	var ls OrderLines
	var failing, passing []RunOrder
	for i := range 8 {
		failing = append(failing, checkRun(&ls, i%2 == 0, i%3 == 0, true, false))
	}
	for i := range 20 {
		passing = append(passing, checkRun(&ls, i%2 == 0, i%3 == 0, false, false))
	}
	if got := ls.OrderCauses(failing, passing); len(got) != 0 {
		t.Errorf("unrelated orders: causes %+v, want none", got)
	}
	failing = failing[:0]
	for range 3 {
		failing = append(failing, checkRun(&ls, true, true, true, false))
	}
	if got := ls.OrderCauses(failing, passing[10:]); len(got) != 0 {
		t.Errorf("3 failing runs: causes %+v, want none", got)
	}
}

// A removal that ran while the queued run it drops had not run yet: the failing runs
// never reach the run's line, the passing ones reach it before the removal.
func TestOrderCausesNamesALineThatNeverRan(t *testing.T) {
	run := func(ls *OrderLines, removedFirst bool) RunOrder {
		b := tracetest.New()
		m := b.Main()
		mu := b.Mutex()
		if !removedFirst {
			m.Lock(mu, "sched.go:77")
			m.Unlock(mu, "sched.go:79")
		}
		m.Lock(mu, "sched.go:64")
		m.Unlock(mu, "sched.go:66")
		return ls.OrderOf(b.Trace(), nil)
	}
	var ls OrderLines
	var failing, passing []RunOrder
	for range 5 {
		failing = append(failing, run(&ls, true))
	}
	for range 6 {
		passing = append(passing, run(&ls, false))
	}
	got := ls.OrderCauses(failing, passing)
	if len(got) != 1 || got[0].First.Line != 64 || got[0].Then.Line != 77 || got[0].ThenRan != 0 {
		t.Fatalf("causes %+v, want sched.go:64 while sched.go:77 had not run", got)
	}
	if msg, _ := got[0].Describe(); !strings.Contains(msg, "the Lock at sched.go:64 came while the Lock at sched.go:77 had not run yet") {
		t.Errorf("message %q", msg)
	}
}

func TestOrderCauseP(t *testing.T) {
	// 7 of 7 failing runs, 0 of 5 passing: one table in C(12,7) = 792.
	if p := orderCauseP(7, 7, 0, 5); math.Abs(p-1.0/792) > 1e-9 {
		t.Errorf("p = %g, want 1/792", p)
	}
	if p := orderCauseP(4, 8, 10, 20); p < 0.3 {
		t.Errorf("half and half: p = %g, want large", p)
	}
}

// A test whose failing runs fail two ways (one subtest by its bug's order, another by
// something else) still names the order of the runs it explains, with their share.
func TestOrderCausesNamesAnOrderOfHalfTheFailures(t *testing.T) {
	var ls OrderLines
	var failing, passing []RunOrder
	for i := range 10 {
		failing = append(failing, checkRun(&ls, i%2 == 0, i%3 == 0, true, false))
	}
	for i := range 20 {
		passing = append(passing, checkRun(&ls, false, i%2 == 0, false, false))
	}
	got := ls.OrderCauses(failing, passing)
	if len(got) != 1 || got[0].First.Line != 22 || got[0].FailingHad != 5 {
		t.Fatalf("causes %+v, want conn.go:22 before conn.go:29 in 5 of 10 failing runs", got)
	}
	if msg, _ := got[0].Describe(); !strings.Contains(msg, "in 5 of 10 failing runs") {
		t.Errorf("message %q", msg)
	}
	// in a third of the failing runs: not named
	failing = failing[:0]
	for i := range 12 {
		failing = append(failing, checkRun(&ls, i%3 == 0, true, true, false))
	}
	if got := ls.OrderCauses(failing, passing); len(got) != 0 {
		t.Errorf("a third of the failing runs: causes %+v, want none", got)
	}
}

// A receive knows the send whose value it got: a removal received at the loop names the
// line that sent it.
func TestOrderOfPairsAReceiveWithItsSend(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	ch := m.MakeChan(1, "sched.go:1")
	m.Send(ch, "sched.go:313")
	m.Recv(ch, "sched.go:160")
	var ls OrderLines
	ls.OrderOf(b.Trace(), nil)
	recv, send := ls.ids[SelectSite{tracetest.Dir + "sched.go", 160}], ls.ids[SelectSite{tracetest.Dir + "sched.go", 313}]
	if from, ok := ls.sentFrom[recv]; !ok || from != send {
		t.Errorf("sentFrom %v, want sched.go:160 from sched.go:313", ls.sentFrom)
	}
}

// The order that sent a goroutine down the failing path comes first, not the orders of that
// path: a worker checks a flag under a mutex (conn.go:85) before or after the test sets it
// under the same mutex (conn_test.go:63, the test's line); having missed it, the worker goes
// on and locks two more mutexes in an order its other path does not (conn.go:91 before
// life.go:103: the library's lines only, and as clean a split).
func TestOrderCausesNamesTheEarliestOrder(t *testing.T) {
	run := func(ls *OrderLines, checkFirst bool) RunOrder {
		b := tracetest.New()
		m := b.Main()
		test := b.Test()
		flag, conn, life := b.Mutex(), b.Mutex(), b.Mutex()
		w := m.Go("conn_test.go:50")
		check := func() { w.Lock(flag, "conn.go:85"); w.Unlock(flag, "conn.go:86") }
		set := func() { m.Lock(flag, "conn_test.go:63"); m.Unlock(flag, "conn_test.go:64") }
		if checkFirst {
			check()
			set()
			w.Lock(conn, "conn.go:91")
			w.Unlock(conn, "conn.go:92")
			w.Lock(life, "life.go:103")
			w.Unlock(life, "life.go:104")
			m.TestUse(test, tracetest.TFatal, "conn_test.go:72")
		} else {
			set()
			check()
			w.Lock(life, "life.go:103")
			w.Unlock(life, "life.go:104")
			w.Lock(conn, "conn.go:91")
			w.Unlock(conn, "conn.go:92")
		}
		m.TestEnd(test, "conn_test.go:1")
		return ls.OrderOf(b.Trace(), nil)
	}
	var ls OrderLines
	var failing, passing []RunOrder
	for range 10 {
		failing = append(failing, run(&ls, true))
	}
	for range 5 {
		passing = append(passing, run(&ls, false))
	}
	got := ls.OrderCauses(failing, passing)
	if len(got) == 0 {
		t.Fatal("no cause named")
	}
	if c := got[0]; c.First.Line != 85 || filepath.Base(c.Then.File) != "conn_test.go" || c.Then.Line != 63 || !c.OnObject {
		t.Errorf("first cause %s:%d before %s:%d, want the check at conn.go:85 before the test's Lock at conn_test.go:63 (all: %+v)", c.First.File, c.First.Line, c.Then.File, c.Then.Line, got)
	}
}

func TestOrderCausesNamesTheOrderBeforeTheFailurePath(t *testing.T) {
	run := func(ls *OrderLines, checkFirst bool) RunOrder {
		b := tracetest.New()
		m := b.Main()
		test := b.Test()
		mu, op, state := b.Mutex(), b.Mutex(), b.Mutex()
		w := m.Go("conn_test.go:5")
		check := func() { w.Lock(mu, "conn.go:22"); w.Unlock(mu, "conn.go:23") }
		closeIt := func() { m.Lock(mu, "conn_test.go:29"); m.Unlock(mu, "conn_test.go:30") }
		if checkFirst {
			check()
			closeIt()
			w.Lock(op, "conn.go:40")
			w.Unlock(op, "conn.go:41")
			w.Lock(state, "state.go:10")
			w.Unlock(state, "state.go:11")
			m.TestUse(test, tracetest.TFatal, "conn_test.go:9")
		} else {
			closeIt()
			check()
			m.Lock(state, "state.go:10")
			m.Unlock(state, "state.go:11")
		}
		m.TestEnd(test, "conn_test.go:1")
		return ls.OrderOf(b.Trace(), nil)
	}
	var ls OrderLines
	var failing, passing []RunOrder
	for range 8 {
		failing = append(failing, run(&ls, true))
	}
	for range 6 {
		passing = append(passing, run(&ls, false))
	}
	got := ls.OrderCauses(failing, passing)
	// (one pair per pair of functions: all these lines are in one function, one is kept)
	if len(got) == 0 {
		t.Fatal("no cause")
	}
	if c := got[0]; c.First.Line != 22 || c.Then.Line != 29 || !c.OnObject || c.PassingRan != 6 {
		t.Errorf("first cause %+v, want conn.go:22 before conn_test.go:29 on one mutex, not the failure's path", c)
	}
}

func TestOrderCausesNamesAThirdOnStrongEvidence(t *testing.T) {
	for _, c := range []struct {
		had  int
		want bool
	}{{12, true}, {10, false}} {
		var ls OrderLines
		var failing, passing []RunOrder
		for i := range 29 {
			failing = append(failing, checkRun(&ls, i < c.had, i%2 == 0, true, false))
		}
		for i := range 22 {
			passing = append(passing, checkRun(&ls, false, i%2 == 0, false, false))
		}
		got := ls.OrderCauses(failing, passing)
		named := len(got) > 0 && got[0].First.Line == 22 && got[0].FailingHad == c.had
		if named != c.want || (!c.want && len(got) != 0) {
			t.Errorf("%d of 29 failing runs: causes %+v, want named %v", c.had, got, c.want)
		}
	}
}

func TestOrderOfLocksIsTheOrderTaken(t *testing.T) {
	run := func(ls *OrderLines, askedFirst bool) RunOrder {
		b := tracetest.New()
		m := b.Main()
		mu := b.Mutex()
		w := m.Go("conn_test.go:5")
		var closeLock *tracetest.Op
		if askedFirst {
			closeLock = m.Pending().Lock(mu, "conn_test.go:29")
		}
		w.Lock(mu, "conn.go:22")
		w.Unlock(mu, "conn.go:23")
		if askedFirst {
			closeLock.Complete()
		} else {
			m.Lock(mu, "conn_test.go:29")
		}
		m.Unlock(mu, "conn_test.go:30")
		return ls.OrderOf(b.Trace(), nil)
	}
	pass := func(ls *OrderLines) RunOrder {
		b := tracetest.New()
		m := b.Main()
		mu := b.Mutex()
		m.Lock(mu, "conn_test.go:29")
		m.Unlock(mu, "conn_test.go:30")
		w := m.Go("conn_test.go:5")
		w.Lock(mu, "conn.go:22")
		w.Unlock(mu, "conn.go:23")
		return ls.OrderOf(b.Trace(), nil)
	}
	var ls OrderLines
	var failing, passing []RunOrder
	for i := range 8 {
		failing = append(failing, run(&ls, i%2 == 0))
	}
	for range 8 {
		passing = append(passing, pass(&ls))
	}
	got := ls.OrderCauses(failing, passing)
	if len(got) == 0 || got[0].First.Line != 22 || got[0].Then.Line != 29 || got[0].FailingHad != 8 {
		t.Errorf("causes %+v, want conn.go:22 before conn_test.go:29 in all 8 failing runs", got)
	}
}

// Which side of a channel arrived first is not an order of the program's: a Clear that
// sends its request to the worker and then waits on done (cache.go:61) and the worker's
// reply on done (cache.go:244) communicate either way; whether the test's goroutine reached
// its receive before the worker sent says only which was slower. A failing run whose
// receive came first is no cause; the order of two sends on the channel still is.
func TestOrderCausesIgnoresWhichSideOfAChannelCameFirst(t *testing.T) {
	run := func(ls *OrderLines, recvFirst, failed bool) RunOrder {
		b := tracetest.New()
		m := b.Main()
		test := b.Test()
		done := m.MakeChan(0, "cache.go:50")
		w := m.Go("cache.go:65")
		if recvFirst {
			r := m.Pending().RecvBare(done, "cache.go:61")
			w.Send(done, "cache.go:244")
			r.Complete()
		} else {
			s := w.Pending().Send(done, "cache.go:244")
			m.RecvBare(done, "cache.go:61")
			s.Complete()
		}
		if failed {
			m.TestUse(test, tracetest.TFatal, "cache_test.go:42")
		}
		m.TestEnd(test, "cache_test.go:1")
		return ls.OrderOf(b.Trace(), nil)
	}
	var ls OrderLines
	var failing, passing []RunOrder
	for range 8 {
		failing = append(failing, run(&ls, true, true))
	}
	for range 12 {
		passing = append(passing, run(&ls, false, false))
	}
	if got := ls.OrderCauses(failing, passing); len(got) != 0 {
		c := got[0]
		t.Errorf("cause %s:%d before %s:%d named: a send and the receive it met arrive in either order", filepath.Base(c.First.File), c.First.Line, filepath.Base(c.Then.File), c.Then.Line)
	}
}

// An order both of whose lines ran in the failing runs comes before "x while y had not run
// yet", even when x ran earlier: the executor's Done (sched.go:75) without the job's send
// (job.go:13) is what the failing path left out, settled only at the run's end; the removal's
// Lock (sched.go:64) before the executor's (sched.go:77) is the order that decided it.
func TestOrderCausesNamesAnOrderBothLinesRanFirst(t *testing.T) {
	run := func(ls *OrderLines, failed bool) RunOrder {
		b := tracetest.New()
		m := b.Main()
		test := b.Test()
		mu, sig, wg := b.Mutex(), b.Mutex(), b.Mutex()
		e, r := m.Go("sched.go:40"), m.Go("sched.go:41")
		if failed {
			e.Lock(wg, "sched.go:75")
			e.Unlock(wg, "sched.go:76")
			for range 4 { // the test's own work while the removal is on its way
				m.Lock(sig, "order_test.go:15")
				m.Unlock(sig, "order_test.go:16")
			}
			r.Lock(mu, "sched.go:64")
			r.Unlock(mu, "sched.go:65")
			e.Lock(mu, "sched.go:77")
			e.Unlock(mu, "sched.go:78")
			m.TestUse(test, tracetest.TFatal, "order_test.go:20")
		} else {
			e.Lock(mu, "sched.go:77")
			e.Unlock(mu, "sched.go:78")
			r.Lock(mu, "sched.go:64")
			r.Unlock(mu, "sched.go:65")
			e.Lock(sig, "job.go:13")
			e.Unlock(sig, "job.go:14")
			e.Lock(wg, "sched.go:75")
			e.Unlock(wg, "sched.go:76")
		}
		m.TestEnd(test, "order_test.go:1")
		tr := b.Trace()
		for i, p := range tr.Positions { // the functions the lines are in: one pair per two functions is named
			switch {
			case filepath.Base(p.File) == "job.go":
				tr.Positions[i].Func = "m.job"
			case p.Line == 64 || p.Line == 65:
				tr.Positions[i].Func = "m.remover"
			case p.Line >= 75:
				tr.Positions[i].Func = "m.execute"
			}
		}
		return ls.OrderOf(tr, nil)
	}
	var ls OrderLines
	var failing, passing []RunOrder
	for range 8 {
		failing = append(failing, run(&ls, true))
	}
	for range 20 {
		passing = append(passing, run(&ls, false))
	}
	got := ls.OrderCauses(failing, passing)
	if len(got) == 0 {
		t.Fatal("no cause named")
	}
	if c := got[0]; c.First.Line != 64 || c.Then.Line != 77 {
		t.Errorf("first cause %s:%d before %s:%d, want sched.go:64 before sched.go:77 (all: %+v)", filepath.Base(c.First.File), c.First.Line, filepath.Base(c.Then.File), c.Then.Line, got)
	}
}
