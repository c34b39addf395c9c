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
func poller(cancel bool) *tracetest.Builder {
	b := tracetest.New().Meta("leakgc", "1")
	m := b.Main()
	done := m.MakeLibChan(0, "p.go:27") // ctx.Done() in the select
	w := m.Go("p.go:43")
	tick := w.MakeLibChan(1, "p.go:22") // time.NewTicker
	for range 3 {
		b.SendForeign(tick)
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

// The same poller with its context cancelled (defer cancel()): nothing to report.
func TestTickerCancelled(t *testing.T) {
	wantNo(t, analyze(t, poller(true)))
}

// A loop that a user channel of its own could still stop (a stop channel a finalizer
// closes) is not judged: the trace cannot say nothing will signal it.
func TestTickerUserStopChannel(t *testing.T) {
	b := tracetest.New().Meta("leakgc", "1")
	m := b.Main()
	stop := m.MakeChan(0, "j.go:10")
	w := m.Go("j.go:11")
	tick := w.MakeLibChan(1, "j.go:20")
	b.SendForeign(tick)
	w.Select("j.go:21", 1, tracetest.RecvCase(stop), tracetest.RecvCase(tick))
	w.Pending().Select("j.go:21", 0, tracetest.RecvCase(stop), tracetest.RecvCase(tick))
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
