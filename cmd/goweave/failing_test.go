package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer"
)

// fuzzFailing runs goweave fuzz -json -race=false over testdata/failing with args.
func fuzzFailing(t *testing.T, args ...string) (*fuzzer.Report, string, int) {
	t.Helper()
	dir, _ := filepath.Abs("testdata/failing")
	stdout, stderr, code := runGoweave(t, dir, append([]string{"fuzz", "-json", "-race=false", "-o", t.TempDir()}, args...)...)
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	return &rep, stderr, code
}

// A test that fails, or panics, in every run, as under go test, is an error naming its
// failure and exit status 2, after a few runs: not "0 bugs" and exit 0 after a budget
// spent on the same failure. Only a test plain go test fails too is said to: one failing
// under goweave's runtime only is said to pass there.
func TestFuzzCommandAlwaysFailingTest(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes three tests")
	}
	rep, stderr, code := fuzzFailing(t, "-time", "30s", "-run", "^(TestAlways(Fails|Panics)|TestUnderGoweaveOnly)$", "./...")
	if code != 2 || len(rep.Findings) != 0 {
		t.Errorf("exit %d, findings %+v; want 2 and none\n%s", code, rep.Findings, stderr)
	}
	wants := map[string]string{"TestAlwaysFails": "failing_test.go:24: TestAlwaysFails failed: sum = 5, want 6",
		"TestAlwaysPanics": "TestAlwaysPanics panicked at failing_test.go:33: assignment to entry in nil map"}
	for test, want := range wants {
		n := 0
		for _, e := range rep.Errors {
			if strings.Contains(e, "failing."+test+" fails under plain go test too, with no schedule of goweave's: the failure comes whatever the schedule; make it pass to fuzz it (go test -count=1 -timeout 30s -run ^("+test+")$ . failed in each of 32 runs;") && strings.Contains(e, want) {
				n++
			}
		}
		if n != 1 || strings.Count(stderr, "error: failing."+test+" ") != 1 {
			t.Errorf("%s: errors %q, want one naming %q\n%s", test, rep.Errors, want, stderr)
		}
	}
	for _, tr := range rep.Tests {
		// brokenAfter runs, and those already under way in the other process slots; one that
		// passes under plain go test is fuzzed on until 32 of its runs failed.
		limit := 8 + 4
		if tr.Test == "TestUnderGoweaveOnly" {
			limit = 32 + 4
		}
		if tr.Failing == nil || !tr.Failing.Unsteered || tr.Runs > limit || tr.Failing.Runs != tr.Runs {
			t.Errorf("%s: %d runs, failing %+v; want a few runs, all failing, one unsteered", tr.Test, tr.Runs, tr.Failing)
		}
	}
	if !strings.Contains(stderr, "failed in every run, unsteered too (see the errors)") {
		t.Errorf("no test line says the test failed in every run:\n%s", stderr)
	}
	n := 0
	for _, e := range rep.Errors {
		if strings.HasPrefix(e, "failing.TestUnderGoweaveOnly fails in every run under goweave (recording on; ") &&
			strings.Contains(e, "plain go test passes (go test -count=1 -timeout 30s -run ^(TestUnderGoweaveOnly)$ .)") &&
			strings.Contains(e, "undergoweave_test.go:12: TestUnderGoweaveOnly failed: run by goweave") {
			n++
		}
	}
	if n != 1 || len(rep.Errors) != 3 {
		t.Errorf("errors %q; want one saying TestUnderGoweaveOnly passes under plain go test", rep.Errors)
	}
}

// A test that fails in every run because it recovers a send on a closed channel (made in
// a select's send case): the failure named once, the send-on-closed reported at the case
// from those runs, and no budget spent past the few runs that tell the test is broken.
func TestFuzzCommandRecoveredSendOnClosed(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes a test")
	}
	rep, stderr, code := fuzzFailing(t, "-time", "30s", "-run", "^TestEnqueueAfterUnref$", "./...")
	if code != 2 || len(rep.Errors) != 1 || !strings.Contains(rep.Errors[0], "failing.TestEnqueueAfterUnref ") ||
		!strings.Contains(rep.Errors[0], "queue_test.go:10: TestEnqueueAfterUnref failed: should not panic: send on closed channel") {
		t.Errorf("exit %d, errors %q; want 2 and one error naming the failure\n%s", code, rep.Errors, stderr)
	}
	var found bool
	for _, f := range rep.Findings {
		if f.Kind == "send-on-closed" && f.Confidence == analysis.Actual && len(f.Positions) == 2 &&
			filepath.Base(f.Positions[0].File) == "queue.go" && f.Positions[0].Line == 25 && f.Positions[1].Role == "close" && f.Positions[1].Line == 16 {
			found = true
		}
	}
	if !found {
		t.Errorf("findings %+v; want a send-on-closed (actual) at queue.go:25, closed at queue.go:16\n%s", rep.Findings, stderr)
	}
	if len(rep.Tests) != 1 || rep.Tests[0].Runs > 8+4 {
		t.Errorf("tests %+v; want one test stopped after a few runs", rep.Tests)
	}
}

// An Example whose output depends on the schedule is a flaky-failure at the Example,
// naming the line that differed.
func TestFuzzCommandFlakyExample(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes an Example")
	}
	rep, stderr, code := fuzzFailing(t, "-runs", "40", "-run", "^Example_order$", "./...")
	if code != 1 || len(rep.Findings) != 1 || len(rep.Errors) != 0 {
		t.Fatalf("exit %d, findings %+v, errors %q; want 1 and one flaky-failure\n%s", code, rep.Findings, rep.Errors, stderr)
	}
	f := rep.Findings[0]
	if f.Kind != "flaky-failure" || filepath.Base(f.Positions[0].File) != "failing_test.go" || f.Positions[0].Line != 39 ||
		!strings.Contains(f.Message, `Example_order's output differs from its // Output: comment: line 1 is "worker example", want "example worker"`) {
		t.Errorf("finding %s at %s:%d: %s; want a flaky-failure at failing_test.go:39 naming the output", f.Kind, filepath.Base(f.Positions[0].File), f.Positions[0].Line, f.Message)
	}
}

// A refuted prediction is a hint: severity hint, SARIF level note, a line saying so in the
// text, and no exit status 1 of its own.
func TestRefutedPredictionOutput(t *testing.T) {
	refuted := fuzzer.Finding{Finding: analysis.Finding{Kind: "mixed-deadlock", Confidence: analysis.Predicted, Message: "m",
		Positions: []analysis.Position{{Role: "blocked", File: "/src/x.go", Line: 3}}}, ID: "GW1", Strategy: "record", Run: 1,
		Refuted: "ran to completion: the test passed without the bug"}
	findings := []fuzzer.Finding{refuted}
	normalizeSeverities(findings)
	if findings[0].Severity != fuzzer.SeverityHint || gating(findings) {
		t.Errorf("severity %q, gating %v; want a hint that does not gate", findings[0].Severity, gating(findings))
	}
	log := sarifFor(findings, "/src")
	if r := log.Runs[0].Results[0]; r.Level != "note" {
		t.Errorf("SARIF level %q, want note", r.Level)
	}
	var w bytes.Buffer
	printFindings(&w, findings, textOptions{cwd: "/src"})
	if !strings.Contains(w.String(), "\thint: predicted; confirmation refuted it: ran to completion: the test passed without the bug\n") {
		t.Errorf("text:\n%s", w.String())
	}
	unrefuted := refuted
	unrefuted.Refuted = ""
	findings = append(findings, unrefuted)
	normalizeSeverities(findings)
	if findings[1].Severity != analysis.SeverityWarning || !gating(findings) {
		t.Errorf("an unrefuted prediction: severity %q, gating %v", findings[1].Severity, gating(findings))
	}
}

// A prediction whose confirmation refutes it, and nothing else: exit 0, the finding kept
// as a hint with the refutation. (testdata/refuted: a select with a default case under a
// lock, predicted as the blocking side of a mixed deadlock; once the analysis no longer
// predicts it, no finding is right as well.)
func TestFuzzCommandRefutedPrediction(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes a test")
	}
	dir, _ := filepath.Abs("testdata/refuted")
	stdout, stderr, code := runGoweave(t, dir, "fuzz", "-json", "-race=false", "-o", t.TempDir(), "-runs", "30", "./...")
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if code != 0 {
		t.Errorf("exit %d, want 0: findings %+v\n%s", code, rep.Findings, stderr)
	}
	for _, f := range rep.Findings {
		if f.Severity != fuzzer.SeverityHint || f.Confidence != analysis.Predicted || !strings.HasPrefix(f.Refuted, "ran to completion") {
			t.Errorf("%s (%s, %s, refuted %q): want a hint its confirmation refuted", f.Kind, f.Confidence, f.Severity, f.Refuted)
		}
	}
	if len(rep.Findings) == 0 {
		t.Log("no prediction: nothing to refute")
	}
}
