package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/fuzzer"
)

// testdata/panicnotstuck (survey 7's class 14, amqp091-go): the process dies of a
// watchdog's panic ("send deadlock", from a time.AfterFunc) while a heartbeater waits in a
// select for the done channel the test's deferred Close would close. A crash is not a
// stuck run: no deadlock or leak finding, only the failure (the test panics in every run,
// so goweave says to fix it first). Before the fix every run gave a "deadlock" (actual)
// "the run is stuck" at the heartbeater's select.
func TestFuzzCommandPanicIsNotStuck(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes a test program")
	}
	dir, _ := filepath.Abs("testdata/panicnotstuck")
	stdout, stderr, _ := runGoweave(t, dir, "fuzz", "-json", "-runs", "4", "-p", "1", "-o", t.TempDir(), "./...")
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	for _, tr := range rep.Tests {
		if tr.Runs == 0 || tr.Statuses["panic"] != tr.Runs {
			t.Errorf("%s: %d runs, %v; want runs, each ended by the watchdog's panic", tr.Test, tr.Runs, tr.Statuses)
		}
	}
	for _, f := range rep.Findings {
		kinds := []string{f.Kind}
		for _, rel := range f.Related {
			kinds = append(kinds, rel.Kind)
		}
		for _, k := range kinds {
			if k == "deadlock" || strings.HasPrefix(k, "leak-") {
				t.Errorf("finding %s (%s) at %v with %v: %s", f.Kind, f.Confidence, f.Positions, kinds, f.Message)
			}
		}
	}
	if len(rep.Errors) != 1 || !strings.Contains(rep.Errors[0], "send deadlock") {
		t.Errorf("errors %q, want the test's failure (its watchdog's panic)", rep.Errors)
	}
}
