package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/fuzzer"
)

// testdata/examples/reflectselect makes every channel operation through package
// reflect (issue 21): the correct tests (a merge whose sends are reflect.Select
// send cases and whose close is Value.Close; offers joined before the close)
// report nothing; the merge the test leaves is a leak at its reflect.Select, and
// the offer (a reflect.Select send with a default) racing the close a
// send-on-closed that the happens-before analysis, not only the race detector,
// gives. Before reflect's operations were recorded the leak went unreported.
func TestReflectChannelOperations(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes a test program")
	}
	src := exampleModule(t, "reflectselect")
	stdout, stderr, code := runGoweave(t, src, "fuzz", "-json", "-runs", "10", "-o", t.TempDir(), "./...")
	if code != 1 {
		t.Fatalf("fuzz exit %d, want 1 (findings)\n%s", code, stderr)
	}
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]fuzzer.Finding{}
	for _, f := range rep.Findings {
		if len(f.Positions) == 0 {
			t.Errorf("%s without a position: %s", f.Kind, f.Message)
			continue
		}
		p := f.Positions[0]
		got[f.Kind+" "+filepath.Base(p.File)+":"+itoa(p.Line)] = f
	}
	for _, want := range []string{"leak-select reflectselect.go:27", "send-on-closed reflectselect.go:39"} {
		if _, ok := got[want]; !ok {
			t.Errorf("missing %s", want)
		}
		delete(got, want)
	}
	for k, f := range got {
		if f.Kind == "flaky-panic" || f.Kind == "flaky-failure" {
			continue // the send-on-closed's panic, reported with it
		}
		t.Errorf("unexpected %s: %s", k, f.Message)
	}
	if f, ok := findingAt(rep.Findings, "send-on-closed"); ok && strings.Contains(f.Message, "race detector") {
		t.Errorf("send-on-closed %q: from the race detector only; the recorded reflect.Select send must order it", f.Message)
	}
}

func findingAt(fs []fuzzer.Finding, kind string) (fuzzer.Finding, bool) {
	for _, f := range fs {
		if f.Kind == kind {
			return f, true
		}
	}
	return fuzzer.Finding{}, false
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// exampleModule copies testdata/examples/<pkg> with the examples' go.mod into a
// temporary module and returns its directory.
func exampleModule(t *testing.T, pkg string) string {
	t.Helper()
	src := t.TempDir()
	ex := filepath.Join("..", "..", "testdata", "examples")
	for _, f := range []string{"go.mod", "go.sum"} {
		data, err := os.ReadFile(filepath.Join(ex, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(src, pkg), 0o755); err != nil {
		t.Fatal(err)
	}
	copyDir(t, filepath.Join(ex, pkg), filepath.Join(src, pkg))
	return src
}
