package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/fuzzer"
)

// testdata/unjoined (issue 21): Crew.Stop closes its workers' quit channel and
// returns without waiting for them, so a test's goleak.VerifyNone (or its polling of
// runtime.NumGoroutine) passes only because the workers exit within the check's retries:
// an unjoined-goroutine at the close, in every run. JoinedCrew.Stop waits on a WaitGroup
// (clean), a test without a check is clean, and so is a goroutine the test itself starts.
// Before the unjoined-goroutine detector the runs all passed with no finding but the rare
// timing-dependent failure a long schedule delay causes.
func TestUnjoinedGoroutineEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes a test program")
	}
	// its own module (it needs goleak; testdata/examples, which the acceptance test fuzzes
	// whole, does not, and a goleak check fails now and then when a schedule holds a
	// goroutine past its retries: a timing failure that test's annotations cannot expect)
	src := t.TempDir()
	copyDir(t, filepath.Join("testdata", "unjoined"), src)
	stdout, stderr, code := runGoweave(t, src, "fuzz", "-json", "-runs", "6", "-o", t.TempDir(), "./...")
	if code != 1 {
		t.Fatalf("fuzz exit %d, want 1 (findings)\n%s", code, stderr)
	}
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	// The campaign groups the two tests' findings of one go statement: read the related
	// ones too, by their messages (which name the check, so the test).
	seen := map[string]bool{}
	for _, f := range rep.Findings {
		msgs := []string{}
		if f.Kind == "unjoined-goroutine" {
			msgs = append(msgs, f.Message)
			if p := f.Positions[0]; p.Role != "stop signal" || filepath.Base(p.File) != "crew.go" || p.Line != 38 {
				t.Errorf("primary position %+v, want the stop signal at crew.go:38", p)
			}
			var roles []string
			for _, p := range f.Positions {
				roles = append(roles, p.Role+"@"+filepath.Base(p.File)+":"+itoa(p.Line))
			}
			for _, want := range []string{"go statement@crew.go:18", "goroutine's last operation@crew.go:25"} {
				if !strings.Contains(strings.Join(roles, " "), want) {
					t.Errorf("positions %v lack %s", roles, want)
				}
			}
		}
		for _, r := range f.Related {
			if r.Kind == "unjoined-goroutine" {
				msgs = append(msgs, r.Message)
			}
		}
		for _, m := range msgs {
			switch {
			case strings.HasPrefix(m, "goleak.VerifyNone at crew_test.go:13 passed only by timing: the goroutine started at crew.go:18 was told to stop by the close at crew.go:38"):
				seen["goleak"] = true
			case strings.HasPrefix(m, "runtime.NumGoroutine at crew_test.go:40 passed only by timing"):
				seen["numgoroutine"] = true
			default:
				t.Errorf("unexpected unjoined-goroutine (a joined crew, a test without a check or the test's own goroutine): %s", m)
			}
		}
	}
	if !seen["goleak"] || !seen["numgoroutine"] {
		t.Errorf("found %v, want the goleak and the NumGoroutine test's; findings %+v", seen, rep.Findings)
	}
}
