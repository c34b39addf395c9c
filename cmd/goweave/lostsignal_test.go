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

// testdata/lostsignal (issue 21, watermill's router): who owns a leak behind an object the
// test never closed.
//   - TestSignalDropped adds a handler before the hub's watcher runs: the hub's non-blocking
//     send of the signal takes its default, and the watcher waits for it forever. A lost
//     signal, the package's leak (an error) naming the dropped send, although the test never
//     closed the hub. TestHubNeverClosed sends no signal: the test's leak (test-only).
//   - TestRouterNeverClosed never closes its router: the handler owing the WaitGroup's Done
//     is the test's leak, and the watcher's Wait behind it is the test's too, saying so.
func TestFuzzCommandLostSignalAndWaitChain(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes a test program")
	}
	src := t.TempDir()
	if err := os.CopyFS(src, os.DirFS("testdata/lostsignal")); err != nil {
		t.Fatal(err)
	}
	type key struct{ test, kind, at string }
	got := map[key]fuzzer.Finding{}
	var stdout string
	// two campaigns: one campaign reports the hub's two leaks, at the same select, as one
	// finding (the first test's)
	for _, run := range []string{"^(TestSignalDropped|TestRouterNeverClosed)$", "^TestHubNeverClosed$"} {
		out, stderr, _ := runGoweave(t, src, "fuzz", "-json", "-runs", "4", "-p", "1", "-run", run, "-o", t.TempDir(), "./...")
		var rep fuzzer.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		stdout += out
		for _, f := range rep.Findings {
			if len(f.Positions) > 0 {
				got[key{f.Test, f.Kind, filepath.Base(f.Positions[0].File) + ":" + itoa(f.Positions[0].Line)}] = f
			}
		}
	}
	for _, w := range []struct {
		test, kind, at string
		testOnly       bool
		says           string
	}{
		{"TestSignalDropped", "leak-select", "lostsignal.go:28", false, "the non-blocking send at lostsignal.go:20 (by the test goroutine) took its default before this goroutine was waiting: the signal was lost"},
		{"TestHubNeverClosed", "leak-select", "lostsignal.go:28", true, "the test made it (NewHub, called at lostsignal_test.go:20) and never closed it: test-only"},
		{"TestRouterNeverClosed", "leak-chan", "lostsignal.go:51", true, "the test made it (NewRouter, called at lostsignal_test.go:28) and never closed it: test-only"},
		{"TestRouterNeverClosed", "leak-waitgroup", "lostsignal.go:57", true, "the Done it waits for belongs to the goroutine started at lostsignal.go:50, blocked at lostsignal.go:51, a leak of the test's: test-only"},
	} {
		f, ok := got[key{w.test, w.kind, w.at}]
		if !ok {
			t.Errorf("no %s at %s in %s; findings:\n%s", w.kind, w.at, w.test, stdout)
			continue
		}
		sev := analysis.SeverityError
		if w.testOnly {
			sev = analysis.SeverityWarning
		}
		if f.TestOnly != w.testOnly || f.Severity != sev || !strings.Contains(f.Message, w.says) {
			t.Errorf("%s at %s in %s: test-only %v, severity %s, message %q; want test-only %v, %s, saying %q",
				w.kind, w.at, w.test, f.TestOnly, f.Severity, f.Message, w.testOnly, sev, w.says)
		}
	}
	if f := got[key{"TestSignalDropped", "leak-select", "lostsignal.go:28"}]; !strings.Contains(positionsOf(f), "dropped send lostsignal.go:20") {
		t.Errorf("the lost signal's finding does not name the dropped send: %s", positionsOf(f))
	}
}

func positionsOf(f fuzzer.Finding) string {
	var s []string
	for _, p := range f.Positions {
		s = append(s, p.Role+" "+filepath.Base(p.File)+":"+itoa(p.Line))
	}
	return strings.Join(s, ", ")
}
