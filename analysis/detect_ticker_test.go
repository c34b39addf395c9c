package analysis

import (
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// poller builds the ctxleak example: a goroutine that selects on a context's Done channel
// and a ticker, woken by the ticker three times; cancel says whether the context is
// cancelled at the end (the goroutine then returns). As in a real run, the GC's leak
// detection ran at the exit and found the goroutine reachable (through its ticker).
func poller(cancel bool) *tracetest.Builder { return pollerFired(cancel, false) }

// pollerFired is poller with the ticks recorded as the runtime records them (TimerFire) when
// fired, else as values of unrecorded sends (a trace without fires).
func pollerFired(cancel, fired bool) *tracetest.Builder {
	b := tracetest.New().Meta("leakgc", "1")
	m := b.Main()
	done := m.MakeLibChan(0, "p.go:27") // ctx.Done() in the select
	w := m.Go("p.go:43")
	tick := w.MakeLibChan(1, "p.go:22") // time.NewTicker
	for range 3 {
		if fired {
			b.TimerFire(tick, "p.go:22")
		} else {
			b.SendForeign(tick)
		}
		w.Select("p.go:26", 1, tracetest.RecvCase(done), tracetest.RecvCase(tick))
	}
	if cancel {
		m.Close(done, "p.go:40")
		w.Select("p.go:26", 0, tracetest.RecvCase(done), tracetest.RecvCase(tick))
		w.End()
	} else {
		w.Pending().Select("p.go:26", 0, tracetest.RecvCase(done), tracetest.RecvCase(tick))
	}
	m.End()
	return b
}

// tickedThenBlocked records w woken ticks times in the select at pos by a value on tick
// (sent by no recorded goroutine), then blocked there on wait and tick.
func tickedThenBlocked(b *tracetest.Builder, w *tracetest.G, pos string, wait, tick tracetest.Chan, ticks int) {
	for range ticks {
		b.SendForeign(tick)
		w.Select(pos, 1, tracetest.RecvCase(wait), tracetest.RecvCase(tick))
	}
	w.Pending().Select(pos, 0, tracetest.RecvCase(wait), tracetest.RecvCase(tick))
}

// A poller whose context is never cancelled loops on its ticker forever: leak-select at its
// select, with the ticker and the Done channel as evidence.
func TestTickerLeak(t *testing.T) {
	r := analyze(t, poller(false))
	f := want(t, r, "leak-select", Actual, "p.go:26", "timer=p.go:22", "never closed=p.go:27")
	if !strings.Contains(f.Message, "woke it (3 times)") {
		t.Errorf("message %q should say how often the timer woke it", f.Message)
	}
	wantNo(t, r, "select-case-without-partner")
}

// With the ticks recorded as timer fires, the finding gives them as its evidence.
func TestTickerLeakFired(t *testing.T) {
	r := analyze(t, pollerFired(false, true))
	f := want(t, r, "leak-select", Actual, "p.go:26", "timer=p.go:22", "never closed=p.go:27")
	if !strings.Contains(f.Message, "woke it (3 times, each by a timer fire)") {
		t.Errorf("message %q should give the timer fires as the evidence", f.Message)
	}
}

// A wake whose fire the trace lacks (a ticker under load, the last fire at the exit) leaves
// the other fires as the evidence, counted.
func TestTickerLeakSomeFired(t *testing.T) {
	b := tracetest.New().Meta("leakgc", "1")
	m := b.Main()
	done := m.MakeLibChan(0, "p.go:27")
	w := m.Go("p.go:43")
	tick := w.MakeLibChan(1, "p.go:22")
	for k := range 4 {
		if k < 3 {
			b.TimerFire(tick, "p.go:22")
		} else {
			b.SendForeign(tick)
		}
		w.Select("p.go:26", 1, tracetest.RecvCase(done), tracetest.RecvCase(tick))
	}
	w.Pending().Select("p.go:26", 0, tracetest.RecvCase(done), tracetest.RecvCase(tick))
	m.End()
	f := want(t, analyze(t, b), "leak-select", Actual, "p.go:26", "timer=p.go:22", "never closed=p.go:27")
	if !strings.Contains(f.Message, "woke it (4 times, 3 of them by a timer fire)") {
		t.Errorf("message %q should give the three fires as the evidence", f.Message)
	}
}

// The same poller with its context cancelled (defer cancel()): nothing to report, with or
// without the fires recorded.
func TestTickerCancelled(t *testing.T) {
	wantNo(t, analyze(t, poller(true)))
	wantNo(t, analyze(t, pollerFired(true, true)))
}

// A timer's channel whose make was not recorded is still known by its fires, which name
// the timer's creation site.
func TestTickerLeakUnrecordedMake(t *testing.T) {
	b := tracetest.New().Meta("leakgc", "1")
	m := b.Main()
	done := m.MakeLibChan(0, "q.go:7")
	w := m.Go("q.go:8")
	tick := b.ForeignChan(1)
	for range 2 {
		b.TimerFire(tick, "q.go:5")
		w.Select("q.go:12", 1, tracetest.RecvCase(done), tracetest.RecvCase(tick))
	}
	w.Pending().Select("q.go:12", 0, tracetest.RecvCase(done), tracetest.RecvCase(tick))
	m.End()
	r := analyze(t, b)
	f := want(t, r, "leak-select", Actual, "q.go:12", "timer=q.go:5", "never closed=q.go:7")
	if !strings.Contains(f.Message, "woke it (2 times, each by a timer fire)") {
		t.Errorf("message %q should give the timer fires as the evidence", f.Message)
	}
}

// A loop that a user channel of its own could still stop (a stop channel a finalizer
// closes) is not judged: the trace cannot say nothing will signal it.
func TestTickerUserStopChannel(t *testing.T) {
	b := tracetest.New().Meta("leakgc", "1")
	m := b.Main()
	stop := m.MakeChan(0, "j.go:10")
	w := m.Go("j.go:11")
	tick := w.MakeLibChan(1, "j.go:20")
	tickedThenBlocked(b, w, "j.go:21", stop, tick, 1)
	m.End()
	r := analyze(t, b)
	for _, f := range r.Findings {
		if strings.Contains(f.Message, "loops forever") {
			t.Errorf("a loop with a user stop channel was judged: %s", f.Message)
		}
	}
}

// A select case on a channel a library made for the user (a context's Done that this run
// never cancelled) is not a case without partner: its partner is the library's cancel.
func TestLibChanCaseNotWithoutPartner(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	done := m.MakeLibChan(0, "c.go:5")
	jobs := m.MakeChan(0, "c.go:6")
	w := m.Go("c.go:7")
	m.Send(jobs, "c.go:8")
	w.Select("c.go:12", 1, tracetest.RecvCase(done), tracetest.RecvValueCase(jobs))
	w.End()
	m.End()
	wantNo(t, analyze(t, b), "select-case-without-partner")
}

// A one-shot select (a dialer's `select { case <-time.After(200ms): ...; case
// <-ctx.Done(): }`, go-redis's TestDoubleFreeTurnHighConcurrency in survey 7) woken once by
// its timer as the run ended: the goroutine left the select and did nothing recorded since.
// That shows no loop, so no leak-select; back in the select (blocked again) it is judged.
func TestTickerOneShotSelectWokenAtEnd(t *testing.T) {
	build := func(backInSelect bool) *tracetest.Builder {
		b := tracetest.New().Meta("leakgc", "1")
		m := b.Main()
		done := m.MakeLibChan(0, "d.go:160") // ctx.Done() of the dial's context
		w := m.Go("pool.go:1078")
		tick := w.MakeLibChan(1, "d.go:147") // time.After(200 * time.Millisecond)
		b.TimerFire(tick, "d.go:147")
		w.Select("d.go:146", 1, tracetest.RecvCase(done), tracetest.RecvCase(tick))
		if backInSelect {
			w.Pending().Select("d.go:146", 0, tracetest.RecvCase(done), tracetest.RecvCase(tick))
		}
		m.End()
		return b
	}
	r := analyze(t, build(false))
	for _, f := range r.Findings {
		if f.Kind == "leak-select" {
			t.Errorf("a select left after its one timer wake was judged a loop: %s", f.Message)
		}
	}
	want(t, analyze(t, build(true)), "leak-select", Actual, "d.go:146", "timer=d.go:147", "never closed=d.go:160")
}
