package analysis

import (
	"strconv"
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// daemonPoller builds a poller like ants' default pool's purge loop: it selects on its
// context's Done channel and a ticker, and the context's cancel is kept for a later Release.
// inInit: its go statement runs while the package is initialised (a package-level
// variable), before the test's goroutine starts; otherwise the test starts it.
// testKnown: the trace names the test's goroutine (META testgoid).
func daemonPoller(inInit, testKnown bool) *tracetest.Builder {
	b := tracetest.New().Meta("leakgc", "1")
	m := b.Main()
	var w *tracetest.G
	if inInit {
		w = m.Go("d.go:29")
	}
	test := m.Go("")
	if !inInit {
		w = test.Go("d.go:29")
	}
	if testKnown {
		b.Meta("testgoid", strconv.FormatUint(test.ID, 10))
	}
	done := w.MakeLibChan(0, "d.go:20") // context.WithCancel's Done
	tick := w.MakeLibChan(1, "d.go:21") // time.NewTicker
	tickedThenBlocked(b, w, "d.go:30", done, tick, 2)
	test.End()
	m.End()
	return b
}

// A package's own daemon, started while the package was initialised, is not the test's
// leak; the same loop started by the test is.
func TestPackageDaemonIsNotTheTestsLeak(t *testing.T) {
	wantNo(t, analyze(t, daemonPoller(true, true)), "leak-select")
	want(t, analyze(t, daemonPoller(false, true)), "leak-select", Actual, "d.go:30", "timer=d.go:21", "never closed=d.go:20")
	// Without META testgoid (older traces) which goroutine is the test's is not known:
	// every loop is judged.
	want(t, analyze(t, daemonPoller(true, false)), "leak-select", Actual, "d.go:30", "timer=d.go:21", "never closed=d.go:20")
}

// A daemon the GC's leak detection proved leaked (it waits on a channel nothing can
// reach) is reported wherever it was started.
func TestPackageDaemonProvenLeakIsReported(t *testing.T) {
	b := tracetest.New().Meta("leakgc", "1")
	m := b.Main()
	w := m.Go("i.go:5")
	test := m.Go("")
	b.Meta("testgoid", strconv.FormatUint(test.ID, 10))
	c := w.MakeChan(0, "i.go:4")
	w.Pending().State(statusLeaked, "chan receive (leaked)").Recv(c, "i.go:6")
	test.End()
	m.End()
	want(t, analyze(t, b), "leak-chan", Actual, "i.go:6")
}

// An Example runs on the main goroutine: the loop main started for the package before
// the example (META examplestart) is the package's daemon; the same loop started by the
// example is the example's leak.
func TestPackageDaemonInAnExample(t *testing.T) {
	for _, byExample := range []bool{false, true} {
		b := tracetest.New().Meta("leakgc", "1")
		m := b.Main()
		var w *tracetest.G
		if !byExample {
			w = m.Go("d.go:29") // a package-level variable's initialisation
		}
		b.Meta("examplestart", strconv.FormatUint(b.Stamp(), 10)) // the counter when the copier is spawned
		m.Go("")                                                  // runExample's output copier
		if byExample {
			w = m.Go("e.go:7")
		}
		done := w.MakeLibChan(0, "d.go:20")
		tick := w.MakeLibChan(1, "d.go:21")
		tickedThenBlocked(b, w, "d.go:30", done, tick, 1)
		m.End()
		r := analyze(t, b)
		if byExample {
			want(t, r, "leak-select", Actual, "d.go:30", "timer=d.go:21", "never closed=d.go:20")
		} else {
			wantNo(t, r, "leak-select")
		}
	}
}
