package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis"
)

// TestKindsDocIsGenerated keeps docs/kinds.md (the target of every diagnostic's
// codeDescription link) equal to the detectors' documentation.
func TestKindsDocIsGenerated(t *testing.T) {
	var want bytes.Buffer
	writeKindsMarkdown(&want)
	got, err := os.ReadFile(filepath.Join("..", "..", "docs", "kinds.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("docs/kinds.md is stale: run `go run ./cmd/goweave kinds -markdown > docs/kinds.md`")
	}
	for _, d := range analysis.Detectors {
		if !strings.Contains(want.String(), "\n## "+d.Name+"\n") {
			t.Errorf("no section (link anchor) for kind %s", d.Name)
		}
	}
}

func TestSummaryIsFirstSentence(t *testing.T) {
	for doc, want := range map[string]string{
		"A close of a nil channel.\n\nclose(nil) panics.":    "A close of a nil channel.",
		"One line. Then more.":                               "One line.",
		"A send on a closed channel, or a send\nthat races.": "A send on a closed channel, or a send that races.",
	} {
		if got := summary(doc); got != want {
			t.Errorf("summary(%q) = %q, want %q", doc, got, want)
		}
	}
}

// goweave analyze -kinds is goweave kinds: one line per kind, in the registry's order.
func TestAnalyzeKindsListsEveryKind(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := analyzeMain([]string{"-kinds"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(lines) != len(analysis.Detectors) {
		t.Fatalf("%d lines for %d kinds:\n%s", len(lines), len(analysis.Detectors), stdout.String())
	}
	for i, d := range analysis.Detectors {
		if f := strings.Fields(lines[i]); len(f) < 2 || f[0] != d.Name || !strings.HasSuffix(lines[i], summary(d.Doc)) {
			t.Errorf("line %d: %q, want %s and its summary", i, lines[i], d.Name)
		}
	}
}
