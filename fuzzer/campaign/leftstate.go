package campaign

import (
	"fmt"
	"regexp"
	"time"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/run"
)

// A test that cannot be rerun against external state passes its first run and fails in
// every later one: an Example that increments a key of the one redis-server and prints 1,
// a test that creates a file with O_EXCL, a listener on a fixed port a leaked process
// keeps. The first run left the state behind; the schedule has nothing to do with it. Its
// failures are not flaky (worthReporting leaves its flaky-failure out) and it is not
// fuzzed further: an error of the campaign says what go test -count=2 would show, as
// broken.go does for a test that fails in every run. The rule: the failing runs are exactly
// the runs after the passing ones, and either both replays of the first pass's schedule
// failed and replayedUnsteered of them ran under no schedule, or (no replay) at least
// stateFailures of them, stateUnsteered under no schedule. A schedule-dependent failure that
// fuzzing reproduces in every steered run passes its unsteered runs now and then: once a
// test's failures are such a suffix, its next runs are unsteered until the verdict or a
// pass (wantsUnsteered), so the failures counted are nearly all unsteered; schedules are no use to
// a test that fails in every run anyway. The verdict is saved with the test's state:
// the next campaign, whose runs all fail on the state still there, says so too.

// stateFailures is how many failures after the passes the verdict needs without a replay
// of the first pass (its trace was too large to keep, or not read), and stateUnsteered
// how many of them must have run under no schedule (the others may be steered runs started
// before the first failure was seen). A flaky test that fails half its unsteered runs gives
// 16 in a row once in 65,536 campaigns; with brokenAfter's 8 and 3 unsteered, a select
// between two ready cases (testdata's TestCanceledGet, 105 of 200 plain runs fail) was
// taken for state left behind in CI, and its bug went unreported.
const (
	stateFailures  = 16
	stateUnsteered = 14
)

// The experiment that tells state left behind from a schedule that fails nearly always:
// once a failure follows the passes, the first passing run's whole recorded schedule is
// run again (mutate.Replay: every operation in its recorded order, every select its
// recorded case), replayRuns times, before any other run. A failure the schedule causes
// passes again under the schedule that passed (the replay is a pass after a failure: the
// test is flaky, fuzzed on); state left behind fails whatever the schedule. With both
// replays failed, replayedUnsteered unsteered failures give the verdict: they stand for a
// failure a replay cannot steer (a timing the order does not hold, a plain memory access),
// at one half, 1 in 32 on top of two failed replays.
const (
	replayRuns        = 2
	replayedUnsteered = 5
	// maxReplayEvents bounds the trace of the first pass kept for the replay until a
	// failure follows it (96 bytes an event: 6 MB, per test under way; dropped when the
	// test ends); larger runs go without (the thresholds above), as PinRun's
	// maxPinnedOps: go-redis's ExampleClient_Watch (100 goroutines, 69-99k events) had
	// a replay schedule of 1.9 MB, built in 0.9 s, and neither replay ended within -time 30s.
	maxReplayEvents = 1 << 16
	// keepPassTrace: the trace is dropped once that many runs passed and none failed
	// (the state a first run leaves fails the next runs, not the fifth).
	keepPassTrace = 4
	// replayStrategy names the replay runs (RunRequest.Strategy, goweave fuzz -v).
	replayStrategy = "replay-pass"
)

// runOrder is what the rule needs of a test's finished runs. Runs of a test may overlap
// (-p 2): two runs that started together may pass and fail in either order, so the order
// is of time, not of run index: no passing run started after a failing one had ended.
type runOrder struct {
	lastPassStart   time.Time // start of the latest-starting passing run
	firstFailEnd    time.Time // end of the earliest-ending failing run (failingRun)
	unsteeredFailed int       // failing runs under no schedule
	// The replay of the first pass: its trace until a failure follows it, the run it
	// was, whether the replays were queued, and how they ended.
	passTrace                  *trace.Trace
	passRun                    int
	replayed                   bool
	replayFailed, replayPassed int
}

// noteOrder records finished run res of t for the rule (after noteFailure, which counts
// failRuns), and queues the replays of the first pass when a failure follows it.
func (t *testState) noteOrder(res jobResult) {
	ar := res.run
	replay := ar.Request != nil && ar.Request.Strategy == replayStrategy
	switch {
	case ar.Status == run.StatusPass:
		t.order.lastPassStart = later(t.order.lastPassStart, res.began)
		if replay {
			t.order.replayPassed++
		}
		if t.order.passRun == 0 && ar.Recorded != nil && len(ar.Recorded.Events) <= maxReplayEvents {
			t.order.passTrace, t.order.passRun = ar.Recorded, ar.Index
		} else if t.failRuns == 0 && t.statuses[string(run.StatusPass)] >= keepPassTrace {
			t.order.passTrace = nil
		}
	case failingRun(ar):
		if t.order.firstFailEnd.IsZero() || res.exited.Before(t.order.firstFailEnd) {
			t.order.firstFailEnd = res.exited
		}
		if ar.Request == nil {
			t.order.unsteeredFailed++
		}
		if replay {
			t.order.replayFailed++
		}
		t.queueReplays()
	}
}

// queueReplays queues, once, the replays of the first pass when failures follow it: they
// run before any other run (with the confirmations, past the run budget).
func (t *testState) queueReplays() {
	pass := t.order.passTrace
	if t.order.replayed || pass == nil || !t.failsAfterPasses() {
		return
	}
	t.order.replayed, t.order.passTrace = true, nil
	recipe, err := replayOf(pass)
	if err != nil {
		return
	}
	for k := range replayRuns {
		t.confirm = append(t.confirm, &RunRequest{Strategy: replayStrategy, Parent: t.order.passRun, Recipe: recipe,
			Key: fmt.Sprintf("%s:%d:%d", replayStrategy, t.order.passRun, k), Note: fmt.Sprintf("replay run %d, which passed, after a failure: state left behind fails again", t.order.passRun)})
	}
}

// failsAfterPasses reports whether t's finished runs are passes followed by failures only.
func (t *testState) failsAfterPasses() bool {
	passes := t.statuses["pass"]
	return passes > 0 && t.failRuns > 0 && passes+t.failRuns == t.runs && t.order.lastPassStart.Before(t.order.firstFailEnd)
}

// leftState reports whether t fails for the state its passing runs left behind (the rule).
func (t *testState) leftState() bool {
	if !t.failsAfterPasses() {
		return false
	}
	if t.order.replayFailed >= replayRuns && t.order.unsteeredFailed >= replayedUnsteered {
		return true
	}
	return t.failRuns >= stateFailures && t.order.unsteeredFailed >= stateUnsteered
}

// wantsUnsteered reports whether t's next run should run under no schedule, to tell state
// left behind from a schedule's failure.
func (t *testState) wantsUnsteered() bool {
	return t.failsAfterPasses()
}

// failsAfter is TestResult.FailsAfter of t: nil unless the rule holds.
func (t *testState) failsAfter() *TestFailure {
	if !t.leftState() || t.failure == nil {
		return nil
	}
	f := *t.failure
	f.Runs, f.Unsteered, f.PassedFirst, f.Replayed = t.failRuns, true, t.statuses["pass"], t.order.replayFailed
	return &f
}

// leftStateError is the Report.Errors entry of a test whose failures follow its passes.
func leftStateError(name, test, where string, f *TestFailure, o runOrder) string {
	first := "the first"
	if f.PassedFirst > 1 {
		first = fmt.Sprintf("the first %d", f.PassedFirst)
	}
	replayed := ""
	if o.replayFailed > 0 {
		replayed = fmt.Sprintf(", %d replaying the schedule of run %d, which passed", o.replayFailed, o.passRun)
	}
	return fmt.Sprintf("%s fails in every run after %s (%s; %d of them under no schedule%s; not fuzzed further): "+
		"the test depends on state an earlier run left behind (a database, a file, a port), not on the schedule; "+
		"run it with go test -count=2 -run '^(%s)$' to see: %s%s",
		name, first, passedThenFailed(f.PassedFirst, f.Runs), o.unsteeredFailed, replayed, regexp.QuoteMeta(test), where, f.Message)
}

// leftBeforeError is the Report.Errors entry of a test failing in every run, unsteered
// too, that an earlier campaign found failing for state left behind: the state is still
// there (the key, the file), so plain go test fails it as well; the user must reset it.
func leftBeforeError(name, test, where string, f *TestFailure) string {
	return fmt.Sprintf("%s fails in every run (%s, one unsteered; not fuzzed further), and an earlier campaign saw it pass its first run and fail in every later one: "+
		"the test depends on state an earlier run left behind (a database, a file, a port), not on the schedule; "+
		"reset that state, and run it with go test -count=2 -run '^(%s)$' to see: %s%s",
		name, failedRuns(f.Runs), regexp.QuoteMeta(test), where, f.Message)
}

func passedThenFailed(passed, failed int) string {
	if passed == 1 {
		return fmt.Sprintf("1 run passed, then %d failed", failed)
	}
	return fmt.Sprintf("%d runs passed, then %d failed", passed, failed)
}
