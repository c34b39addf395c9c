package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer"
	"github.com/goweave/goweave/internal/wants"
)

// TestCorpus runs goweave over the acceptance corpus (../shared/corpus beside the checkout)
// and matches its findings against the kernels' `// want` annotations. It is slow (it builds
// every kernel with the runtime overlay), so it runs only when GOWEAVE_ACCEPTANCE names a mode:
//
//	analyze: one recorded run per test (`goweave fuzz -strategy record -runs 1`): every kind the
//	         corpus table marks "actual" or "predicted" must be found on its want line, and no
//	         finding may be unexpected (correct_* kernels: none at all).
//	fuzz:    a fuzzing campaign (`goweave fuzz -race`): every want of every kernel must be found.
func TestCorpus(t *testing.T) {
	mode := os.Getenv("GOWEAVE_ACCEPTANCE")
	if mode == "" {
		t.Skip("set GOWEAVE_ACCEPTANCE=analyze or =fuzz to run the corpus acceptance check")
	}
	corpus, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(corpus, "go.mod")); err != nil {
		t.Fatalf("GOWEAVE_ACCEPTANCE is set but there is no corpus at %s", corpus)
	}
	kernels, err := wants.ReadCorpusTable(filepath.Join(corpus, "README.md"))
	if err != nil {
		t.Fatal(err)
	}

	bin := filepath.Join(t.TempDir(), "goweave")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building goweave: %v\n%s", err, out)
	}
	if v := os.Getenv("GOWEAVE_ACCEPTANCE_GOTOOLCHAIN"); v != "" {
		checkToolchain(t, bin, corpus, v)
	}
	args := []string{"fuzz", "-json", "-o", t.TempDir()}
	switch mode {
	case "analyze":
		args = append(args, "-strategy", "record", "-runs", "1")
	case "fuzz":
		args = append(args, "-race", "-time", envOr("GOWEAVE_ACCEPTANCE_TIME", "30s"), "-until-wants")
	default:
		t.Fatalf("unknown GOWEAVE_ACCEPTANCE mode %q", mode)
	}
	reports := runForReports(t, bin, corpus, append(args, "./..."))

	if mode == "fuzz" {
		// A campaign is a random search: on a loaded 2-core machine a kernel's schedule can
		// be missed within the budget (leak_mutex is the noisy one: see BENCHMARKS.md).
		// Kernels with missing wants get up to two more campaigns, logged so a flaky kernel
		// stays visible. They start -fresh: continuing the saved state would not run again
		// the schedules the first campaign ran, and a lost race is worth another try.
		for attempt := 2; attempt <= 3; attempt++ {
			var again []string
			for name := range kernels {
				a, err := wants.ParseDir(filepath.Join(corpus, name))
				if err != nil {
					t.Fatal(err)
				}
				if len(a.Match(reports).Missing) > 0 {
					again = append(again, "./"+name+"/")
				}
			}
			if len(again) == 0 {
				break
			}
			t.Logf("campaign %d for %d kernel(s) with missing wants: %s", attempt, len(again), strings.Join(again, " "))
			retry := append(slices.Clone(args), "-fresh")
			reports = append(reports, runForReports(t, bin, corpus, append(retry, again...))...)
		}
	}

	met, total := 0, 0
	for name, k := range kernels {
		t.Run(name, func(t *testing.T) {
			a, err := wants.ParseDir(filepath.Join(corpus, name))
			if err != nil {
				t.Fatal(err)
			}
			res := a.Match(reports)
			for _, u := range res.Unexpected {
				t.Errorf("unexpected %s at %s:%d", u.Kind, filepath.Base(u.File), u.Line)
			}
			for _, m := range res.Missing {
				if mode == "analyze" && !k.InOneRun(m.Kind) {
					continue // needs fuzzing: not expected from one run
				}
				t.Errorf("missing %s (found by: %s)", m, k.FoundBy[m.Kind])
			}
			total += len(a.Wants)
			met += len(a.Wants) - len(res.Missing)
		})
	}
	t.Logf("corpus %s: %d of %d wants met, %d findings in all", mode, met, total, len(reports))
}

// runForReports runs goweave with args in dir and returns its findings' primary positions,
// and those of the findings grouped with them.
func runForReports(t *testing.T, bin, dir string, args []string) []wants.Report {
	t.Helper()
	return wantReports(runForFindings(t, bin, dir, args))
}

// runForFindings runs goweave with args in dir and returns the findings of its JSON report.
func runForFindings(t *testing.T, bin, dir string, args []string) []fuzzer.Finding {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = acceptanceEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
		t.Fatalf("goweave %s: %v\nstderr:\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var report fuzzer.Report
	if err := json.Unmarshal(stdout.Bytes(), &report); err != nil {
		t.Fatalf("decoding goweave's JSON: %v\n%s", err, stdout.String())
	}
	return report.Findings
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// acceptanceEnv is goweave's environment in TestCorpus: with
// GOWEAVE_ACCEPTANCE_GOTOOLCHAIN=goX.Y.Z (.ci/toolchains.sh) goweave patches
// and builds with that toolchain, while goweave itself is built with the
// installed Go (goweave's own go.mod may need a newer one).
func acceptanceEnv() []string {
	if v := os.Getenv("GOWEAVE_ACCEPTANCE_GOTOOLCHAIN"); v != "" {
		return append(os.Environ(), "GOTOOLCHAIN="+v)
	}
	return nil
}

// checkToolchain fails the test unless goweave, in dir, would patch toolchain
// v and supports it.
func checkToolchain(t *testing.T, bin, dir, v string) {
	t.Helper()
	cmd := exec.Command(bin, "version")
	cmd.Dir, cmd.Env = dir, acceptanceEnv()
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), ": "+v+" ") || !strings.Contains(string(out), "supported: yes") {
		t.Fatalf("goweave version with GOTOOLCHAIN=%s: %v\n%s", v, err, out)
	}
	t.Logf("%s", out)
}

// TestStdlibExamples runs goweave over the programs of testdata/examples (issue 14: the
// standard library and dependencies in the happens-before) and matches the findings against
// their `// want` annotations: a poller left looping on its ticker after its context's only
// cancel was dropped is a leak-select at its select; the same poller with `defer cancel()`,
// a value published through an atomic flag, an atomic.Value, a sync.Map or atomic.StoreInt32, a send that errgroup.Wait orders before the
// close, a send that time.AfterFunc orders before the close in its function, a select with a
// default case under a lock (nbselect), a read lock released by the worker it was handed to
// (lockhandoff) and a channel closed as a signal (closesignal) report nothing; of the two leaks of testonly, the one in the package's code is an
// error and the one of the test's own goroutine is test-only, a warning; the batcher of
// neverclosed, which the test made and never closed, leaks test-only, naming its Close. Slow (the overlay builds), so it runs with GOWEAVE_ACCEPTANCE set.
func TestStdlibExamples(t *testing.T) {
	if os.Getenv("GOWEAVE_ACCEPTANCE") == "" {
		t.Skip("set GOWEAVE_ACCEPTANCE to run the standard-library examples")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "goweave")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building goweave: %v\n%s", err, out)
	}
	findings := runForFindings(t, bin, dir, []string{"fuzz", "-json", "-o", t.TempDir(), "-runs", "10", "./..."})
	reports := wantReports(findings)
	checkTestOnly(t, filepath.Join(dir, "testonly"), findings)
	checkNeverClosed(t, filepath.Join(dir, "neverclosed"), findings)
	checkTimerEvidence(t, filepath.Join(dir, "ctxleak"), findings)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range entries {
		if !d.IsDir() {
			continue
		}
		t.Run(d.Name(), func(t *testing.T) {
			a, err := wants.ParseDir(filepath.Join(dir, d.Name()))
			if err != nil {
				t.Fatal(err)
			}
			res := a.Match(reports)
			for _, u := range res.Unexpected {
				t.Errorf("unexpected %s at %s:%d", u.Kind, filepath.Base(u.File), u.Line)
			}
			for _, m := range res.Missing {
				t.Errorf("missing %s", m)
			}
		})
	}
}

// checkTimerEvidence checks that the leak-select of the example in dir (a poller looping on
// its ticker) gives the recorded timer fires as the evidence that only the timer woke it.
func checkTimerEvidence(t *testing.T, dir string, findings []fuzzer.Finding) {
	t.Helper()
	n := 0
	for _, f := range findings {
		if f.Kind != "leak-select" || len(f.Positions) == 0 || filepath.Dir(f.Positions[0].File) != dir {
			continue
		}
		n++
		if !strings.Contains(f.Message, "by a timer fire") {
			t.Errorf("leak-select at %s:%d: message %q does not give the timer fires as evidence", f.Positions[0].File, f.Positions[0].Line, f.Message)
		}
	}
	if n == 0 {
		t.Errorf("no leak-select in %s", dir)
	}
}

// checkNeverClosed checks the leak of the example in dir, a batcher whose goroutine waits
// for the close in its Close method, which the test never calls: test-only (a warning),
// naming that close and the test's call of New.
func checkNeverClosed(t *testing.T, dir string, findings []fuzzer.Finding) {
	t.Helper()
	n := 0
	for _, f := range findings {
		if len(f.Positions) == 0 || filepath.Dir(f.Positions[0].File) != dir || !strings.HasPrefix(f.Kind, "leak-") {
			continue
		}
		n++
		for _, s := range []string{"close(b.input) at batcher.go:42 in (*Batcher).Close, never ran in this run", "the test made it (New, called at batcher_test.go:7)"} {
			if !strings.Contains(f.Message, s) {
				t.Errorf("%s at %s:%d: message %q lacks %q", f.Kind, filepath.Base(f.Positions[0].File), f.Positions[0].Line, f.Message, s)
			}
		}
		if !f.TestOnly || f.Severity != analysis.SeverityWarning {
			t.Errorf("%s at %s:%d: test_only %v, severity %s; want test-only, a warning", f.Kind, filepath.Base(f.Positions[0].File), f.Positions[0].Line, f.TestOnly, f.Severity)
		}
	}
	if n == 0 {
		t.Errorf("no leak in %s", dir)
	}
}

// checkTestOnly checks the leak findings of the example in dir: the test's own leak (in its
// _test.go) is test-only, a warning; the package's (in a non-test file) is not, an error.
func checkTestOnly(t *testing.T, dir string, findings []fuzzer.Finding) {
	t.Helper()
	seen := map[bool]bool{}
	for _, f := range findings {
		if len(f.Positions) == 0 || filepath.Dir(f.Positions[0].File) != dir || !strings.HasPrefix(f.Kind, "leak-") {
			continue
		}
		inTest := strings.HasSuffix(f.Positions[0].File, "_test.go")
		seen[inTest] = true
		want := analysis.SeverityError
		if inTest {
			want = analysis.SeverityWarning
		}
		if f.TestOnly != inTest || f.Severity != want || strings.Contains(f.Message, "test-only") != inTest {
			t.Errorf("%s at %s:%d: test_only %v, severity %s, message %q; want test_only %v, severity %s",
				f.Kind, filepath.Base(f.Positions[0].File), f.Positions[0].Line, f.TestOnly, f.Severity, f.Message, inTest, want)
		}
	}
	if !seen[true] || !seen[false] {
		t.Errorf("%s: leaks seen in the test %v, in the package %v; want both", filepath.Base(dir), seen[true], seen[false])
	}
}
