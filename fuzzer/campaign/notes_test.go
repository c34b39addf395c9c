//go:build linux

package campaign

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace"
)

// slowConfig fuzzes testdata/slowrecorder, whose tests keep the progress record the goweave
// runtime keeps (GOWEAVE_PROGRESS).
func slowConfig(t *testing.T, run string) Config {
	cfg := fakeConfig(t)
	cfg.Dir, cfg.Run, cfg.Strategy = "testdata/slowrecorder", run, "record"
	return cfg
}

// A test still making progress at its time limit (its progress record's operations keep
// growing) runs on to its end: a pass, no hang, and one warning that names the test, how
// long it took and the flag to raise.
func TestSlowRunIsAWarningNotAHang(t *testing.T) {
	fakeAnalysis(t)
	cfg := slowConfig(t, "^TestSlow$")
	cfg.RunTimeout, cfg.RunsPerTest = 3*time.Second, 1 // the test takes 5s; its cap is 3× -timeout
	rep, err := Fuzz(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := rep.Tests[0]
	if tr.Statuses["pass"] != 1 || tr.Slow != 1 || tr.Analyzed != 1 || len(rep.Findings) != 0 {
		t.Fatalf("%+v, findings %+v: want one slow passing run, analyzed, and no finding", tr, rep.Findings)
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "slowrecorder.TestSlow: slow, not hung") ||
		!strings.Contains(rep.Warnings[0], "-timeout") || !strings.Contains(rep.Warnings[0], "operations recorded") {
		t.Errorf("warnings %q: want one that names the slow test and -timeout", rep.Warnings)
	}
}

// A test that makes no progress is stopped at its time limit as before: timeouts, and the
// hang finding at the test goroutine's position.
func TestStuckRunIsStillAHang(t *testing.T) {
	fakeAnalysis(t)
	cfg := slowConfig(t, "^TestStuck$")
	cfg.RunTimeout, cfg.RunsPerTest = time.Second, 2
	rep, err := Fuzz(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := rep.Tests[0]
	if tr.Statuses["timeout"] != 2 || tr.Slow != 0 {
		t.Fatalf("%+v: want two timeouts, none slow", tr)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].Kind != "hang" {
		t.Fatalf("findings %+v, want the hang", rep.Findings)
	}
	if slices.ContainsFunc(rep.Warnings, func(w string) bool { return strings.Contains(w, "slow") }) {
		t.Errorf("warnings %q: a stuck test called slow", rep.Warnings)
	}
}

// The time budget does not cut the analysis of a test's first run (it is said when that
// goes on past the budget); it cuts a later one, which is a warning, in the report and its
// JSON. The counts of runs agree between the test and the campaign's progress.
func TestAnalysisCutByTheBudgetIsAWarning(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	old := analyzeTrace
	analyzeTrace = func(tr *trace.Trace, o analysis.Options) (*analysis.Result, error) {
		<-release // never within the budget: the campaign stops waiting for it at the budget's end
		return &analysis.Result{Trace: tr}, nil
	}
	t.Cleanup(func() { analyzeTrace = old })
	first := analyzeTrace
	cfg := fakeConfig(t)
	cfg.Run, cfg.Strategy, cfg.Parallel = "^TestNothing$", "record", 2
	cfg.TimePerTest = time.Second
	analyzeTrace = func(tr *trace.Trace, o analysis.Options) (*analysis.Result, error) {
		if strings.HasSuffix(o.Run, " run 1") {
			// The test's budget started before its first run did: this ends after it.
			time.Sleep(cfg.TimePerTest + 100*time.Millisecond)
			return &analysis.Result{Trace: tr}, nil
		}
		return first(tr, o)
	}
	var last Progress
	var ended []TestEnded
	rep, err := Fuzz(context.Background(), cfg, func(p Progress) {
		if p.Done {
			last = p
		}
		ended = append(ended, p.Ended...)
	})
	if err != nil {
		t.Fatal(err)
	}
	tr := rep.Tests[0]
	if tr.Analyzed != 1 || tr.Runs < 1 {
		t.Fatalf("%+v: want the first run analyzed", tr)
	}
	has := func(s ...string) bool {
		return slices.ContainsFunc(rep.Warnings, func(w string) bool {
			for _, part := range s {
				if !strings.Contains(w, part) {
					return false
				}
			}
			return true
		})
	}
	if !has("fakerecorder.TestNothing: the analysis of its first run went on", "past its time budget") {
		t.Errorf("warnings %q: none says the first run's analysis went past the budget", rep.Warnings)
	}
	if tr.Runs > 1 && !has("fakerecorder.TestNothing: ", "not analyzed", "the time budget (-time 1s) ended during the analysis") {
		t.Errorf("warnings %q: none says a run's analysis was cut by the budget (%d runs)", rep.Warnings, tr.Runs)
	}
	data, _ := json.Marshal(rep)
	if !strings.Contains(string(data), `"warnings":[`) || !strings.Contains(string(data), "first run went on") {
		t.Errorf("JSON %s: no warnings", data)
	}
	if len(ended) != 1 || ended[0].Runs != tr.Runs || last.Runs != tr.Runs || ended[0].CutShort != tr.CutShort || last.CutShort != tr.CutShort {
		t.Errorf("runs: test ended with %+v, campaign %d (%d cut), report %d (%d cut): want them to agree", ended, last.Runs, last.CutShort, tr.Runs, tr.CutShort)
	}
}

// A run still making progress at its cap (3× -timeout before any run passed) is stopped
// there, a timeout, but not a hang: nothing shows that it could not progress. The warning
// says it was stopped at its cap.
func TestCappedRunIsNoHang(t *testing.T) {
	fakeAnalysis(t)
	cfg := slowConfig(t, "^TestSlow$")
	cfg.RunTimeout, cfg.RunsPerTest = time.Second, 2 // the test takes 5s, its cap is 3s
	rep, err := Fuzz(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tr := rep.Tests[0]; tr.Statuses["timeout"] != 2 || tr.Slow != 2 || len(rep.Findings) != 0 {
		t.Fatalf("%+v, findings %+v: want two timeouts, both slow, no hang", tr, rep.Findings)
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "slowrecorder.TestSlow: slow, not hung: 2 runs stopped at 3s still making progress") {
		t.Errorf("warnings %q: want one that says the runs were stopped at their cap", rep.Warnings)
	}
}

func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		3 * time.Millisecond:                        "3ms",
		420*time.Millisecond + 300*time.Microsecond: "420ms",
		2*time.Second + 340*time.Millisecond:        "2.3s",
	} {
		if got := shortDuration(d).String(); got != want {
			t.Errorf("shortDuration(%v) = %s, want %s", d, got, want)
		}
	}
}

// Before any run passed, a run still making progress may go on for the test's whole -time
// when that is longer than 3× -timeout: the test that takes 5 s with -timeout 1s and
// -time 8s passes, slow, instead of being stopped at 3 s.
func TestSlowFirstRunGetsTheTestsTime(t *testing.T) {
	fakeAnalysis(t)
	cfg := slowConfig(t, "^TestSlow$")
	cfg.RunTimeout, cfg.RunsPerTest, cfg.TimePerTest = time.Second, 1, 8*time.Second
	rep, err := Fuzz(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tr := rep.Tests[0]; tr.Statuses["pass"] != 1 || tr.Slow != 1 || tr.Analyzed != 1 {
		t.Fatalf("%+v: want one slow passing run, analyzed", tr)
	}
}
