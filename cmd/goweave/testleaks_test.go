package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer"
)

// testdata/testleaks (issue 21): leaks the test made on purpose or never closed.
//   - bubble.TestForEachNil asserts, in a testing/synctest bubble, that an operator blocks
//     forever on a nil channel, and recovers synctest's deadlock panic: its blocked
//     goroutines are the test's assertion, not reported (rill's "nil" subtests, class 24).
//     TestForEachNilNoBubble leaves the same goroutine blocked outside a bubble: reported.
//   - wayout.TestRouterNeverClosed never closes its router: the router's select, which also
//     waits on its context's Done, is the test's leak (test-only), naming the Close
//     (watermill's router at the fixed commit).
//   - wayout.TestPoolClosed closes its pool, whose Close forgets its worker: the worker's
//     leak stays an error, although another test of the package makes a worker itself.
//   - wayout.TestConsumeNeverClosed hands the package a channel and never closes it: the
//     package's goroutine ranging over it is the test's leak (watermill's subscriber mock).
//     TestDrainNeverClosed: the same through a forwarder whose close waits for it: the
//     goroutine waiting for the forwarder's close is the test's leak too (watermill's router
//     handler waiting for its decorator's close).
func TestFuzzCommandTestMadeLeaks(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes a test program")
	}
	src := t.TempDir()
	if err := os.CopyFS(src, os.DirFS("testdata/testleaks")); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, _ := runGoweave(t, src, "fuzz", "-json", "-runs", "4", "-p", "1", "-o", t.TempDir(), "./...")
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	type key struct{ kind, at string }
	got := map[key]fuzzer.Finding{}
	for _, f := range rep.Findings {
		if f.Test == "TestForEachNil" {
			t.Errorf("a goroutine a synctest bubble left blocked is reported: %s at %v: %s", f.Kind, f.Positions, f.Message)
		}
		if len(f.Positions) > 0 {
			got[key{f.Kind, filepath.Base(f.Positions[0].File) + ":" + itoa(f.Positions[0].Line)}] = f
		}
	}
	for _, w := range []struct {
		kind, at string
		testOnly bool
		says     string
	}{
		{"leak-nil-chan", "bubble.go:16", false, "receiving from a nil channel"},
		{"leak-select", "wayout.go:35", true, "its way out, close(r.closing) at wayout.go:42 in (*Router).Close, never ran"},
		{"leak-chan", "wayout.go:26", true, "the test made it (NewRouter, called at wayout_test.go:13)"},
		{"leak-chan", "wayout.go:54", false, "close(w.stop) at wayout.go:57 in (*Worker).Close"},
		{"leak-chan", "wayout.go:74", true, "it waits for the channel the test made at wayout_test.go:52, which nothing closed; the test never closed it"},
		{"leak-chan", "wayout.go:86", true, "it waits for the channel the test made at wayout_test.go:61, which nothing closed"},
		{"leak-chan", "wayout.go:98", true, "its way out, close(out) at wayout.go:89 in (*Forwarder).Forward, never ran in this run; the channel was made at wayout.go:84 in Forward; the goroutine that would run it, the goroutine started at wayout.go:85, is blocked at wayout.go:86, a leak of the test's: test-only"},
	} {
		f, ok := got[key{w.kind, w.at}]
		if !ok {
			t.Errorf("no %s at %s; findings:\n%s", w.kind, w.at, stdout)
			continue
		}
		sev := analysis.SeverityError
		if w.testOnly {
			sev = analysis.SeverityWarning
		}
		if f.TestOnly != w.testOnly || f.Severity != sev || !strings.Contains(f.Message, w.says) {
			t.Errorf("%s at %s: test-only %v, severity %s, message %q; want test-only %v, %s, saying %q",
				w.kind, w.at, f.TestOnly, f.Severity, f.Message, w.testOnly, sev, w.says)
		}
	}
}
