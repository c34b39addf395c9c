package campaign

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer/build"
	"github.com/goweave/goweave/fuzzer/run"
)

// A test failing in every run, one unsteered, is checked once under plain go test, as soon
// as it is found broken; the error says what that check saw.
func TestPlainCheckWording(t *testing.T) {
	for _, c := range []struct {
		outcome, why string
		race         bool
		want         string
	}{
		{plainFail, "", true, "p.TestX fails under plain go test too, with no schedule of goweave's: the failure is the code's or the test's, not a schedule's; make it pass to fuzz it (go test -run '^(TestX)$' . failed; under goweave all 8 runs failed, one unsteered; not fuzzed further): x_test.go:9: TestX failed: boom"},
		{plainPass, "", true, "p.TestX fails in every run under goweave (race detector and recording on; all 8 runs failed, one unsteered; not fuzzed further); plain go test passes (go test -run '^(TestX)$' .): the failure may depend on timing the recording changes: x_test.go:9: TestX failed: boom"},
		{plainPass, "", false, "p.TestX fails in every run under goweave (recording on; all 8 runs failed, one unsteered; not fuzzed further); plain go test passes"},
		{"", "it did not build: x", true, "p.TestX fails in every run under goweave (race detector and recording on; all 8 runs failed, one unsteered; not fuzzed further; plain go test could not tell: it did not build: x): x_test.go:9"},
	} {
		checked := 0
		plainGoTest = func(ctx context.Context, dir, test string, race bool, vet string, timeout time.Duration) (string, string, string) {
			checked++
			if dir != "/m" || test != "TestX" || race != c.race || vet != "off" {
				t.Errorf("checked %s %s race=%v vet=%q", dir, test, race, vet)
			}
			return c.outcome, c.why, "go test -run '^(TestX)$' ."
		}
		ts := &testState{bin: &build.TestBinary{Package: "p", Dir: "/m"}, name: "TestX", statuses: map[string]int{}}
		cp := &campaign{cfg: Config{Race: c.race, Vet: "off", RunTimeout: time.Second, Parallel: 1}, tests: []*testState{ts},
			plain: &plainChecks{ctx: context.Background(), sem: make(chan struct{}, 1)}}
		for range brokenAfter {
			ts.runs++
			ar := &AnalyzedRun{Run: &run.Run{Status: run.StatusFail}, Findings: []Finding{{Finding: analysis.Finding{
				Kind: "flaky-failure", Message: "TestX failed: boom", Positions: []analysis.Position{{File: "/m/x_test.go", Line: 9}}}}}}
			if ts.runs > 1 {
				ar.Request = &RunRequest{Strategy: "flow"}
			}
			ts.noteFailure(ar)
			cp.checkPlain(ts, false)
		}
		cp.waitPlain()
		errs := cp.failingErrors()
		if checked != 1 || len(errs) != 1 || !strings.HasPrefix(errs[0], c.want) {
			t.Errorf("%d checks, errors %q; want one check and an error starting %q", checked, errs, c.want)
		}
		if f := ts.failing(); f == nil || f.Plain != c.outcome || f.PlainCommand == "" {
			t.Errorf("failing %+v", f)
		}
	}
	plainGoTest = runPlainGoTest
}

// runPlainGoTest runs go test and tells a failure, a pass and a build failure apart.
func TestRunPlainGoTest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module plain\n\ngo 1.25\n",
		"p_test.go": `package plain

import (
	"os"
	"testing"
)

func TestPass(t *testing.T) {}

func TestFail(t *testing.T) { t.Fatal("no") }

func TestPanic(t *testing.T) { panic("boom") }

// TestPort fails as a second process does on a fixed port the campaign's runs hold.
func TestPort(t *testing.T) { t.Fatal("listen tcp 127.0.0.1:16379: bind: address already in use") }

// TestGoweaveOnly fails under goweave's runtime only: the plain check must not pass goweave's variables on.
func TestGoweaveOnly(t *testing.T) {
	if os.Getenv("GOWEAVE_RUN") != "" {
		t.Fatal("GOWEAVE_RUN set")
	}
}
`,
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("GOWEAVE_RUN", "1")
	for test, want := range map[string]string{"TestPass": plainPass, "TestFail": plainFail, "TestPanic": plainFail, "TestGoweaveOnly": plainPass, "TestNone": "", "TestPort": ""} {
		outcome, why, command := runPlainGoTest(context.Background(), dir, test, false, "", 10*time.Second)
		if outcome != want || (want == "") != (why != "") || !strings.Contains(command, "-run ^("+test+")$") {
			t.Errorf("%s: %q (%s) by %s, want %q", test, outcome, why, command, want)
		}
	}
	if _, why, _ := runPlainGoTest(context.Background(), dir, "TestPort", false, "", 10*time.Second); !strings.Contains(why, "the campaign's runs of the package may hold") || !strings.Contains(why, "bind: address already in use") {
		t.Errorf("TestPort: %s", why)
	}
	if err := os.WriteFile(filepath.Join(dir, "broken_test.go"), []byte("package plain\n\nfunc x() { undefined() }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if outcome, why, _ := runPlainGoTest(context.Background(), dir, "TestPass", false, "", 10*time.Second); outcome != "" || !strings.HasPrefix(why, "it did not build") {
		t.Errorf("broken package: %q (%s)", outcome, why)
	}
}
