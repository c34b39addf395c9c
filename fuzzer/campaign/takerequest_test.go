package campaign

import (
	"slices"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace/tracetest"
	"github.com/goweave/goweave/fuzzer/build"
	"github.com/goweave/goweave/fuzzer/run"
)

// Queued requests run strategy by strategy in turn, each strategy's in the order it
// proposed them, so a strategy with many proposals does not delay another's first one;
// flow takes every other turn.
func TestTakeRequestTakesStrategiesInTurn(t *testing.T) {
	ts := &testState{}
	for i, s := range []string{"gopie", "gopie", "gopie", "prefix", "gopie", "flow", "flow", "gfuzz"} {
		ts.queue = append(ts.queue, &RunRequest{Strategy: s, Key: s + string(rune('0'+i))})
	}
	var got []string
	for len(ts.queue) > 0 {
		got = append(got, ts.takeRequest().Key)
	}
	want := []string{"flow5", "gfuzz7", "flow6", "gopie0", "prefix3", "gopie1", "gopie2", "gopie4"}
	if !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	// A strategy proposing later joins the rotation after the one that ran last.
	ts.turn, ts.favouredLast = "gopie", true
	ts.queue = []*RunRequest{{Strategy: "flow", Key: "f"}, {Strategy: "gfuzz", Key: "g"}, {Strategy: "prefix", Key: "p"}}
	for _, want := range []string{"p", "f", "g"} {
		if r := ts.takeRequest(); r.Key != want {
			t.Errorf("took %s, want %s", r.Key, want)
		}
	}
	// Only the favoured strategy left: it runs on.
	ts.queue = []*RunRequest{{Strategy: "flow", Key: "f1"}, {Strategy: "flow", Key: "f2"}}
	if a, b := ts.takeRequest().Key, ts.takeRequest().Key; a != "f1" || b != "f2" {
		t.Errorf("took %s, %s; want f1, f2", a, b)
	}
}

// favouring is a test strategy that favours the named strategy.
type favouring string

func (f favouring) Name() string                      { return "auto" }
func (f favouring) Mutate(*AnalyzedRun) []*RunRequest { return nil }
func (f favouring) favouredStrategy() string          { return string(f) }

// The test's strategy can favour another strategy than flow.
func TestTakeRequestFavoursTheTestsChoice(t *testing.T) {
	ts := &testState{strategy: favouring("gfuzz")}
	for i, s := range []string{"flow", "flow", "gopie", "gfuzz", "gfuzz"} {
		ts.queue = append(ts.queue, &RunRequest{Strategy: s, Key: s + string(rune('0'+i))})
	}
	var got []string
	for len(ts.queue) > 0 {
		got = append(got, ts.takeRequest().Key)
	}
	want := []string{"gfuzz3", "flow0", "gfuzz4", "gopie2", "flow1"}
	if !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

// favour picks gfuzz when a select case never taken had a concurrent partner, flow
// otherwise (also when every case was taken at some point, or the select has a default).
func TestFavour(t *testing.T) {
	build := func(chooseStop, withDefault bool) *analysis.Result {
		b := tracetest.New()
		main := b.Main()
		updates := main.MakeChan(1, "w.go:5")
		stop := main.MakeChan(0, "w.go:6")
		w := main.Go("w.go:7")
		main.Send(updates, "w.go:8")
		w.Select("w.go:20", 0, tracetest.RecvValueCase(updates), tracetest.RecvCase(stop))
		switch {
		case chooseStop:
			main.Close(stop, "w.go:9")
			w.Select("w.go:20", 1, tracetest.RecvValueCase(updates), tracetest.RecvCase(stop))
		case withDefault:
			main.Close(stop, "w.go:9")
			w.Select("w.go:20", tracetest.Default, tracetest.RecvValueCase(updates), tracetest.RecvCase(stop))
		default:
			main.Close(stop, "w.go:9") // concurrent with the select: a partner it never took
		}
		w.End()
		return analysis.Analyze(b.Trace())
	}
	if got := favour(build(false, false)); got != "gfuzz" {
		t.Errorf("case never taken, partner concurrent: favour %q, want gfuzz", got)
	}
	if got := favour(build(true, false)); got != "flow" {
		t.Errorf("every case taken: favour %q, want flow", got)
	}
	if got := favour(build(false, true)); got != "flow" {
		t.Errorf("select with default: favour %q, want flow", got)
	}
}

// A steered test waits for its first run's analysis before it starts a second run: that
// analysis yields the schedules worth running. Record runs start at once.
func TestNextJobWaitsForFirstAnalysis(t *testing.T) {
	for _, st := range []Strategy{favouring("flow"), recordStrategy{}} {
		c := &campaign{cfg: Config{Parallel: 2, RunsPerTest: 10}}
		ts := &testState{bin: &build.TestBinary{Package: "p"}, name: "TestA", strategy: st}
		c.tests = []*testState{ts}
		now := time.Now()
		if j, ok := c.nextJob(now); !ok || j.index != 1 {
			t.Fatalf("%s: first job %+v, %v", st.Name(), j, ok)
		}
		_, second := c.nextJob(now)
		if want := st.Name() == "record"; second != want {
			t.Errorf("%s: second run started beside the first: %v, want %v", st.Name(), second, want)
		}
		if st.Name() == "record" {
			continue
		}
		ts.inflight, ts.runs = 0, 1 // the first run finished
		for i := 2; i <= 3; i++ {
			if j, ok := c.nextJob(now); !ok || j.index != i {
				t.Errorf("after the first run: job %+v, %v; want run %d", j, ok, i)
			}
		}
	}
}

// A steered run killed because the campaign was cancelled goes back to the front of the
// queue (and so into the saved state): it never ran.
func TestCancelledRunIsQueuedAgain(t *testing.T) {
	c := &campaign{cfg: Config{Parallel: 1}}
	ts := &testState{bin: &build.TestBinary{Package: "p"}, name: "TestA", strategy: favouring("flow"), inflight: 2,
		queue: []*RunRequest{{Strategy: "gopie", Key: "g"}}}
	c.tests = []*testState{ts}
	req := &RunRequest{Strategy: "flow", Key: "f"}
	c.finish(jobResult{job: job{test: ts, index: 2, request: req}, run: &AnalyzedRun{Run: &run.Run{Canceled: true}}})
	c.finish(jobResult{job: job{test: ts, index: 3, request: &RunRequest{Strategy: "confirm", Key: "c"}}, run: &AnalyzedRun{Run: &run.Run{Canceled: true}}})
	if len(ts.queue) != 2 || ts.queue[0] != req {
		t.Errorf("queue %v, want the cancelled flow request first (confirmations are not queued)", ts.queue)
	}
}
