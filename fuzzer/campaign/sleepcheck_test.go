package campaign

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// testdata/sleepcheck's TestWorkAfterClose fails in every plain run (it sleeps 100 ms so
// that Work is past its check before Close), yet passes when Work's goroutine is slower
// than the sleep: a flaky failure whose cause is Work's check Lock before Close's Lock on
// the same mutex, not a broken test. TestAlwaysWrong fails whatever the schedule: broken,
// an error saying so. Before, flow's delay of the check until Close's Lock ended at its 50
// ms window, shorter than the sleep: no run passed and the test was called broken.
func TestFailingEveryPlainRunButScheduleDependent(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes two tests under the goweave runtime")
	}
	dir, _ := filepath.Abs("testdata/sleepcheck")
	rep, err := Fuzz(context.Background(), Config{Dir: dir, RunsPerTest: 48, Parallel: 1, OutDir: t.TempDir(), RunTimeout: 20 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	work := testResult(rep, "TestWorkAfterClose")
	if work.Failing != nil || work.Statuses["pass"] == 0 || work.Statuses["fail"] == 0 {
		t.Errorf("TestWorkAfterClose %+v (failing %+v): want passing and failing runs, not broken", work, work.Failing)
	}
	i := slices.IndexFunc(rep.Findings, func(f Finding) bool { return f.Test == "TestWorkAfterClose" && f.Kind == "flaky-failure" })
	if i < 0 {
		t.Fatalf("findings %+v: no flaky-failure of TestWorkAfterClose", rep.Findings)
	}
	f := rep.Findings[i]
	if want := "cause: the Lock at guard.go:20 came before the Lock at guard.go:38, on one mutex"; !strings.Contains(f.Message, want) {
		t.Errorf("message %q, want %q in it", f.Message, want)
	}
	lines := map[int]bool{}
	for _, p := range f.Positions {
		if filepath.Base(p.File) == "guard.go" {
			lines[p.Line] = true
		}
	}
	if !lines[20] || !lines[38] {
		t.Errorf("positions %+v, want guard.go:20 and :38", f.Positions)
	}
	always := testResult(rep, "TestAlwaysWrong")
	if always.Failing == nil || always.Failing.Plain != plainFail || always.Statuses["pass"] != 0 || always.Runs >= 48 {
		t.Errorf("TestAlwaysWrong %+v (failing %+v): want broken, failing under plain go test too, stopped early", always, always.Failing)
	}
	if !slices.ContainsFunc(rep.Errors, func(e string) bool {
		return strings.HasPrefix(e, "sleepcheck.TestAlwaysWrong fails under plain go test too") && strings.Contains(e, "n = 2, want 3")
	}) {
		t.Errorf("errors %q: want TestAlwaysWrong's", rep.Errors)
	}
}
