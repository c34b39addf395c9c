package campaign

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer/run"
)

// A test that fails in every run is not flaky (worthReporting leaves its flaky-failure or
// flaky-panic out: the failure does not depend on the schedule), but it is not nothing
// either: the campaign could not fuzz it, since every schedule ends in the same failure
// before reaching the code under test. It is an error of the campaign (Report.Errors,
// TestResult.Failing; goweave fuzz exits 2), not a finding of a kind: no detector claims
// a concurrency bug, and a kind of its own would be one more thing a CI gate on bugs has to
// know to skip. The findings of its runs are reported as any run's (a send on a closed
// channel the test recovers is still that bug).
//
// "Broken" must mean the failure does not depend on the schedule, and a test that fails in
// 85% of its runs is flaky: the campaign needs its passing runs to name the cause
// (ordercause.go). A flaky test whose runs fail with probability p gives n failures in a
// row with probability p^n, so the verdict is in stages, each a cheap test of "it never
// passes":
//   1. brokenAfter (8) goweave runs, all failing, one unsteered: the test looks broken. A
//      test failing 85% of its runs gets here in 27% of campaigns (0.85^8), one failing
//      half its runs in 0.4%. Its runs stop (cost: 8 runs).
//   2. the plain check (plain.go): up to plainRuns (32) runs under plain go test, each a
//      process of its own, until one passes. All failing: broken, an error as before. 32
//      failures in a row put the pass rate under plain go test below 9% at 95% confidence
//      (1-0.05^(1/32)); a test passing 15% of its plain runs is called broken once in 180
//      (0.85^32 = 0.55%), 27% x 0.55% = 1 campaign in 670 for the 85% test above. Cost on
//      a broken test: one build without goweave (as the single check before) and 32 short
//      processes (0.35 s for testdata/failing's panicking test; BENCHMARKS.md).
//   2b. all plain runs failing: the test's queued schedules still run, up to probeRuns (16)
//      of them (probing): a test that fails in every plain run may pass when a goroutine is
//      slower than the test's sleep. None passing: broken, an error as before. One passing:
//      a flaky failure, whose message says that every plain run failed.
//   3. a plain pass: the failure depends on the schedule or on goweave's runtime (timing the
//      recording changes): the test resumes, and is broken only when goweaveOnlyAfter of
//      its goweave runs failed with none passing (the same 9% bound, now under goweave).
// Any pass ends the question for good: the failures are flaky, reported with their cause.

// brokenAfter is how many runs, all failing, one of them unsteered, make a test look
// broken (stage 1). Not fewer: a flaky test on a loaded machine fails its unsteered run now
// and then (a 10 ms stagger that load overtakes), and its steered runs may all fail because
// fuzzing finds its bug; at 3 runs the corpus's concurrent_recv was called broken in some
// campaigns.
const brokenAfter = 8

// goweaveOnlyAfter is how many goweave runs, all failing, call broken a test that passed
// under plain go test (stage 3).
const goweaveOnlyAfter = plainRuns

// TestFailure is how a test failed in every run of a campaign (TestResult.Failing).
type TestFailure struct {
	// Message is the first failing run's failure: "TestX failed: <its last log line>",
	// "TestX panicked at x.go:12: <the panic>", "ExampleX's output differs ...".
	Message string `json:"message"`
	// Position is where: the failing log line, the panicking line, the Example (absent
	// when the output names no line of the module).
	Position *analysis.Position `json:"position,omitempty"`
	Runs     int                `json:"runs"` // runs that failed so (all its runs)
	// Unsteered: a run under no schedule failed too: the test fails without goweave's
	// scheduling, with its runtime all the same (recording on, the race detector when the
	// campaign has it); Plain says whether plain go test fails it.
	Unsteered bool `json:"unsteered"`
	// Plain is how the test ended when run under plain go test (the campaign's -race and
	// -vet, no goweave runtime; plain.go) until it passed, at most plainRuns times, for an
	// Unsteered failure: "fail" (every run), "pass" (the first run), "flaky" (PlainFailed
	// runs failed, then one passed), or empty when that could not be told (PlainNote says
	// why). PlainCommand is the command each run stands for.
	Plain        string `json:"plain,omitempty"`
	PlainCommand string `json:"plainCommand,omitempty"`
	PlainNote    string `json:"plainNote,omitempty"`
	PlainFailed  int    `json:"plainFailed,omitempty"`
	PlainPassed  int    `json:"plainPassed,omitempty"`
	// PassedFirst, for TestResult.FailsAfter, is how many runs passed before the first
	// failing one (leftstate.go).
	PassedFirst int `json:"passedFirst,omitempty"`
	// Replayed, for FailsAfter, is how many replays of a passing run's schedule failed too.
	Replayed int `json:"replayed,omitempty"`
	// Probed is how many of its queued schedules ran after plain go test failed in every
	// run, all failing too (stage 2b).
	Probed int `json:"probed,omitempty"`
}

// failingRun reports whether ar failed as a test (a test failure or a panic) for reasons
// of its own: a run the race detector failed is a race finding, and a panic a detector
// explains (a close of a closed channel in every run: close-of-closed, actual) is that
// finding, not a broken test. Leaks do not explain a failure: a test that fails early
// often leaves its goroutines blocked.
func failingRun(ar *AnalyzedRun) bool {
	r := ar.Run
	if r.Status == run.StatusCrash && len(r.Races) == 0 {
		// an exit or a fatal error of the test's (crash.go): a failure when it has a finding
		return slices.ContainsFunc(ar.Findings, func(f Finding) bool { return f.Kind == "flaky-failure" || f.Kind == "flaky-panic" })
	}
	if (r.Status != run.StatusFail && r.Status != run.StatusPanic) || len(r.Races) > 0 {
		return false
	}
	if r.Status == run.StatusPanic {
		for _, f := range ar.Findings {
			if f.Confidence != analysis.Predicted && !analysis.SymptomKind(f.Kind) && !strings.HasPrefix(f.Kind, "leak-") {
				return false
			}
		}
	}
	return true
}

// noteFailure records how run ar of t ended for the failing-test rule.
func (t *testState) noteFailure(ar *AnalyzedRun) {
	t.silent.note(ar)
	if !failingRun(ar) {
		return
	}
	t.failRuns++
	if ar.Request == nil {
		t.unsteeredFailed = true
	}
	if t.failure != nil {
		return
	}
	t.failure = &TestFailure{Message: fmt.Sprintf("%s %s", t.name, ar.Status)}
	for _, f := range ar.Findings {
		if (f.Kind == "flaky-failure" || f.Kind == "flaky-panic") && len(f.Positions) > 0 {
			p := f.Positions[0]
			t.failure.Message, t.failure.Position = f.Message, &p
			return
		}
	}
	switch {
	case ar.Panic != "":
		t.failure.Message = fmt.Sprintf("%s panicked: %s", t.name, firstLine(ar.Panic))
	case ar.Status == run.StatusFail:
		t.failure.Message = t.name + " failed (it logged no message)"
	}
}

// alwaysFails reports whether every finished run of t failed (at least one did).
func (t *testState) alwaysFails() bool {
	return t.runs > 0 && t.failRuns == t.runs
}

// looksBroken reports whether t's runs so far say it may fail whatever the schedule
// (stage 1): its plain check starts.
func (t *testState) looksBroken() bool {
	return t.unsteeredFailed && t.runs >= brokenAfter && t.alwaysFails()
}

// broken reports whether t starts no more runs for failing whatever the schedule: it looks
// broken and its plain check saw no pass (or it is under way, or its probe is due: the test
// waits for it, see plainPending), or, after a plain pass, goweaveOnlyAfter runs failed.
// It changes nothing: the campaign calls it many times, from several places.
func (t *testState) broken() bool {
	if !t.looksBroken() {
		return false
	}
	if p := t.plain; p != nil && p.ended() {
		switch p.outcome {
		case plainPass, plainFlaky:
			return t.runs >= goweaveOnlyAfter
		case plainFail:
			return t.probeDue() || !t.probing()
		}
	}
	return true
}

// Stage 2b, the probe: a test that fails in every plain run can still be
// schedule-dependent: a regression test that sleeps so that the other goroutine is past its
// check reproduces its race in every plain run, and passes only when that goroutine is
// slower than the sleep (amqp091-go's Reconnect against Close: 32 of 32 plain runs failed,
// its first 8-9 goweave runs failed, later steered ones passed). Its queued schedules are
// what goweave knows of other orders; when they all fail too, nothing is left to try, and
// the test is broken. Cost on a test that fails whatever the schedule: at most probeRuns
// runs, none when its runs proposed no schedule.
//
// The probe begins in one step of the campaign's loop (beginProbes, before it picks the
// next run), not inside a predicate: broken() was where it began, so the probe counted
// from whichever of the loop, a finished run or a lone rerun asked first, and a report
// that asked would have begun one.

// beginProbes begins the probe of each test whose plain check ended with every run
// failing and that still looks broken (the window: its next probeRuns runs). A probe
// begins once.
func (c *campaign) beginProbes() {
	for _, t := range c.tests {
		if t.probeDue() {
			t.plain.probeFrom = t.started
		}
	}
}

// probeDue reports whether t's plain check ended with every run failing, t still looks
// broken and its probe has not begun: it waits for beginProbes, as for a check under way.
func (t *testState) probeDue() bool {
	p := t.plain
	return p != nil && p.probeFrom == 0 && p.ended() && p.outcome == plainFail && t.looksBroken()
}

// probing reports whether t's probe has begun and still runs: its queued schedules, up to
// probeRuns of them.
func (t *testState) probing() bool {
	p := t.plain
	return p != nil && p.probeFrom > 0 && len(t.queue) > 0 && t.started < p.probeFrom+probeRuns
}

// probeRuns bounds the probe of a test that failed in every plain run (stage 2b).
const probeRuns = 16

// probed is how many runs t's probe started (stage 2b).
func (t *testState) probed() int {
	if t.plain == nil || t.plain.probeFrom == 0 {
		return 0
	}
	return t.started - t.plain.probeFrom
}

// failing is TestResult.Failing of t: nil unless every finished run failed.
func (t *testState) failing() *TestFailure {
	if !t.alwaysFails() || t.failure == nil {
		return nil
	}
	f := *t.failure
	f.Runs, f.Unsteered, f.Probed = t.runs, t.unsteeredFailed, t.probed()
	if f.Unsteered {
		t.plainOf(&f)
	}
	return &f
}

// failingErrors are the Report.Errors of the tests that failed in every run, or in every
// run after their passing ones (leftstate.go): once per test.
func (c *campaign) failingErrors() []string {
	var out []string
	for _, t := range c.tests {
		name := t.bin.Package + "." + t.name
		if f := t.failsAfter(); f != nil {
			out = append(out, leftStateError(name, t.name, failureWhere(f), f, t.order))
			continue
		}
		f := t.failing()
		if f == nil {
			continue
		}
		where := failureWhere(f)
		if t.leftBefore && f.Unsteered {
			out = append(out, leftBeforeError(name, t.name, where, f))
			continue
		}
		if f.Unsteered {
			out = append(out, fmt.Sprintf("%s%s%s", c.unsteeredFailure(name, f), where, f.Message))
			continue
		}
		out = append(out, fmt.Sprintf("%s failed in every run (%s, each under a schedule of goweave's; a plain go test run may pass): %s%s", name, failedRuns(f.Runs), where, f.Message))
	}
	return out
}

// failureWhere is "file.go:N: " of f's position, or "" when its message names the line.
func failureWhere(f *TestFailure) string {
	if f.Position == nil {
		return ""
	}
	where := fmt.Sprintf("%s:%d: ", filepath.Base(f.Position.File), f.Position.Line)
	if strings.Contains(f.Message, " at "+where[:len(where)-2]+":") {
		return "" // a panic's message names its line already
	}
	return where
}

// fuzzedOn says why a test resumed after a plain pass has no more runs: goweaveOnlyAfter
// of them failed, or its budget ended first.
func fuzzedOn(runs int) string {
	if runs >= goweaveOnlyAfter {
		return "not fuzzed further"
	}
	return "fuzzed on after plain go test passed, until its budget ended"
}

// plainTimes is "in its only run" or "in each of its n runs" of a plain check.
func plainTimes(n int) string {
	if n <= 1 {
		return "in its only run"
	}
	return fmt.Sprintf("in each of %d runs", n)
}

func failedRuns(n int) string {
	if n == 1 {
		return "its only run failed"
	}
	return fmt.Sprintf("all %d runs failed", n)
}

// unsteeredFailure words the error of a test that failed in every run, one unsteered, by
// what its plain go test check saw (plain.go): only a failure there too says that the test
// fails without goweave.
func (c *campaign) unsteeredFailure(name string, f *TestFailure) string {
	runtime := "recording on"
	if c.cfg.Race {
		runtime = "race detector and recording on"
	}
	runs := failedRuns(f.Runs) + ", one unsteered"
	switch f.Plain {
	case plainFail:
		probe := ""
		if f.Probed > 0 {
			probe = fmt.Sprintf(", %s of its queued schedules after that", plural(f.Probed, "run"))
		}
		return fmt.Sprintf("%s fails under plain go test too, with no schedule of goweave's: the failure comes whatever the schedule; make it pass to fuzz it (%s failed %s; under goweave %s%s; not fuzzed further): ", name, f.PlainCommand, plainTimes(f.PlainFailed), runs, probe)
	case plainPass:
		return fmt.Sprintf("%s fails in every run under goweave (%s; %s; %s); plain go test passes (%s): the failure may depend on timing the recording changes: ", name, runtime, runs, fuzzedOn(f.Runs), f.PlainCommand)
	case plainFlaky:
		return fmt.Sprintf("%s fails in every run under goweave (%s; %s; %s); under plain go test it failed %s, then passed (%s): the failure depends on the schedule, and goweave's runtime makes it fail in every run: ", name, runtime, runs, fuzzedOn(f.Runs), plainTimes(f.PlainFailed), f.PlainCommand)
	}
	note := "plain go test not run"
	if f.PlainNote != "" {
		note = "plain go test could not tell: " + f.PlainNote
	}
	return fmt.Sprintf("%s fails in every run under goweave (%s; %s; not fuzzed further; %s): ", name, runtime, runs, note)
}

// markPlainFailed says in f, a grouped flaky panic or failure with cause finding cause, that
// its test failed in every run of its plain check and passed under some of goweave's
// schedules (stage 2b): a failure a user sees in every go test run is a reliable
// reproducer of the race, not a broken test, and the message must not let "flaky" read as
// "rare".
func (c *campaign) markPlainFailed(f *Finding, cause Finding) {
	if f.Kind != "flaky-failure" && f.Kind != "flaky-panic" {
		return
	}
	t := c.ranTest(cause)
	if t == nil || t.plain == nil || !t.plain.ended() || t.plain.outcome != plainFail {
		return
	}
	passed := t.statuses[string(run.StatusPass)]
	if passed == 0 {
		return
	}
	f.Message += fmt.Sprintf("; it fails in every plain run (%s: %d of %d failed); passes under %d of %d goweave schedules, so its failure depends on the schedule",
		t.plain.command, t.plain.failed, t.plain.failed, passed, t.runs)
}
