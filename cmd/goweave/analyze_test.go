package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

func writeTrace(t *testing.T, b *tracetest.Builder) string {
	path := filepath.Join(t.TempDir(), "run.trace")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func sendCloseTrace(t *testing.T) string {
	b := tracetest.New()
	m := b.Main()
	c := m.MakeChan(1, "srv.go:29")
	w := m.Go("srv.go:30")
	w.Send(c, "srv.go:19")
	m.Close(c, "srv.go:25")
	return writeTrace(t, b)
}

func TestAnalyzeText(t *testing.T) {
	var out, errOut bytes.Buffer
	code := analyzeMain([]string{sendCloseTrace(t)}, &out, &errOut)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (findings); stderr %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasSuffix(strings.Fields(lines[0])[0], "srv.go:19:2:") ||
		!strings.Contains(lines[0], " send-on-closed: send on ") || !strings.Contains(lines[1], "srv.go:25:2: close") {
		t.Errorf("output:\n%s", out.String())
	}
}

func TestAnalyzeJSON(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := analyzeMain([]string{"-json", sendCloseTrace(t)}, &out, &errOut); code != 1 {
		t.Fatalf("exit %d", code)
	}
	var doc struct {
		Findings []struct {
			Kind, Confidence, Fingerprint string
			Positions                     []struct {
				Role, File string
				Line       int
			}
		}
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Findings) != 1 || doc.Findings[0].Kind != "send-on-closed" || doc.Findings[0].Confidence != "predicted" ||
		doc.Findings[0].Positions[0].Role != "send" || doc.Findings[0].Positions[0].Line != 19 || doc.Findings[0].Fingerprint == "" {
		t.Errorf("json: %s", out.String())
	}
}

func TestAnalyzeCleanAndCorrupt(t *testing.T) {
	b := tracetest.New()
	b.Main().MakeChan(0, "a.go:1")
	clean := writeTrace(t, b)
	var out, errOut bytes.Buffer
	if code := analyzeMain([]string{clean}, &out, &errOut); code != 0 || out.Len() != 0 {
		t.Errorf("clean trace: exit %d, output %q", code, out.String())
	}
	data, _ := os.ReadFile(clean)
	corrupt := filepath.Join(t.TempDir(), "bad.trace")
	os.WriteFile(corrupt, data[:len(data)-5], 0o644)
	errOut.Reset()
	if code := analyzeMain([]string{corrupt}, &out, &errOut); code != 2 ||
		!strings.Contains(errOut.String(), corrupt) || !strings.Contains(errOut.String(), "offset") {
		t.Errorf("corrupt trace: exit %d, stderr %q", code, errOut.String())
	}
	if code := analyzeMain(nil, &out, &errOut); code != 2 {
		t.Errorf("no arguments: exit %d", code)
	}
}

// Past -analysis-memory a trace is not analyzed: an error naming it and the budget, exit 2.
func TestAnalyzeMemoryBudget(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	for range 20000 {
		m.Go("a.go:2")
	}
	path := writeTrace(t, b)
	var out, errOut bytes.Buffer
	if code := analyzeMain([]string{"-analysis-memory", "1", path}, &out, &errOut); code != 2 ||
		!strings.Contains(errOut.String(), "analysis of "+path+" stopped") || !strings.Contains(errOut.String(), "budget of 1 MB") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
	errOut.Reset()
	if code := analyzeMain([]string{"-analysis-memory", "512", path}, &out, &errOut); code != 0 {
		t.Errorf("within the budget: exit %d, stderr %q", code, errOut.String())
	}
}
