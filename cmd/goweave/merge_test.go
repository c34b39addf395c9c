package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer"
)

func finding(fp string, conf analysis.Confidence, run int) fuzzer.Finding {
	return fuzzer.Finding{Finding: analysis.Finding{Kind: "send-on-closed", Confidence: conf, Fingerprint: fp,
		Positions: []analysis.Position{{Role: "send", File: "/x/a.go", Line: 3}}}, Run: run}
}

func TestMergeReports(t *testing.T) {
	shard0 := &fuzzer.Report{
		Tests:    []fuzzer.TestResult{{Package: "p", Test: "TestA", Runs: 10}},
		Findings: []fuzzer.Finding{finding("f1", analysis.Predicted, 1), finding("f2", analysis.Actual, 7)},
	}
	shard1 := &fuzzer.Report{
		Tests:    []fuzzer.TestResult{{Package: "q", Test: "TestB", Runs: 4}},
		Findings: []fuzzer.Finding{finding("f1", analysis.Confirmed, 3), finding("f2", analysis.Actual, 2), finding("f3", analysis.Actual, 1)},
	}
	m := mergeReports([]*fuzzer.Report{shard0, shard1})
	if len(m.Tests) != 2 {
		t.Errorf("tests = %+v, want both shards' tests", m.Tests)
	}
	got := map[string]fuzzer.Finding{}
	for _, f := range m.Findings {
		if _, dup := got[f.Fingerprint]; dup {
			t.Errorf("fingerprint %s reported twice", f.Fingerprint)
		}
		got[f.Fingerprint] = f
	}
	if len(got) != 3 {
		t.Fatalf("findings = %+v, want f1, f2, f3 once each", m.Findings)
	}
	if got["f1"].Confidence != analysis.Confirmed {
		t.Errorf("f1 confidence %s, want the confirmed one", got["f1"].Confidence)
	}
	if got["f2"].Run != 2 {
		t.Errorf("f2 from run %d, want the earliest run 2", got["f2"].Run)
	}
}

func TestMergeCommand(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, rep *fuzzer.Report) string {
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a.json", &fuzzer.Report{Findings: []fuzzer.Finding{}})
	b := write("b.json", &fuzzer.Report{Findings: []fuzzer.Finding{finding("f1", analysis.Actual, 1)}})
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{not json"), 0o644)

	stdout := os.Stdout
	devnull, _ := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	os.Stdout = devnull
	defer func() { os.Stdout = stdout }()
	if code := runMerge([]string{a}); code != 0 {
		t.Errorf("merge of a clean report: exit %d, want 0", code)
	}
	if code := runMerge([]string{a, b, "-sarif", filepath.Join(dir, "out.sarif")}); code != 2 {
		// flags after arguments are not parsed: -sarif is taken as a report path
		t.Errorf("merge with a flag after the reports: exit %d, want 2", code)
	}
	if code := runMerge([]string{"-sarif", filepath.Join(dir, "out.sarif"), a, b}); code != 1 {
		t.Errorf("merge with a finding: exit %d, want 1", code)
	}
	if _, err := os.Stat(filepath.Join(dir, "out.sarif")); err != nil {
		t.Errorf("no SARIF written: %v", err)
	}
	if code := runMerge([]string{a, bad}); code != 2 {
		t.Errorf("merge of a corrupt report: exit %d, want 2", code)
	}
}

// Merging keeps the shards' errors and warnings (an error: exit 2), and a prediction one
// shard's confirmation refuted stays a hint only if the other shard's was refuted too; a
// merge of refuted predictions alone exits 0.
func TestMergeErrorsAndRefuted(t *testing.T) {
	refuted := finding("f1", analysis.Predicted, 1)
	refuted.Refuted = "ran to completion: the test passed without the bug"
	m := mergeReports([]*fuzzer.Report{
		{Findings: []fuzzer.Finding{refuted}, Errors: []string{"p.TestX fails without goweave's scheduling"}, Warnings: []string{"w"}},
		{Findings: []fuzzer.Finding{refuted}},
	})
	if len(m.Errors) != 1 || len(m.Warnings) != 1 || len(m.Findings) != 1 || m.Findings[0].Refuted == "" {
		t.Errorf("merged %+v, want the error, the warning and the refuted prediction", m)
	}
	m = mergeReports([]*fuzzer.Report{{Findings: []fuzzer.Finding{refuted}}, {Findings: []fuzzer.Finding{finding("f1", analysis.Predicted, 2)}}})
	if m.Findings[0].Refuted != "" {
		t.Errorf("a prediction another shard did not refute is kept refuted")
	}

	dir := t.TempDir()
	write := func(name string, rep *fuzzer.Report) string {
		b, _ := json.Marshal(rep)
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	hint := write("hint.json", &fuzzer.Report{Findings: []fuzzer.Finding{refuted}})
	failing := write("failing.json", &fuzzer.Report{Findings: []fuzzer.Finding{}, Errors: []string{"p.TestX failed in every run"}})
	stdout, stderr := os.Stdout, os.Stderr
	devnull, _ := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	os.Stdout, os.Stderr = devnull, devnull
	defer func() { os.Stdout, os.Stderr = stdout, stderr }()
	if code := runMerge([]string{hint}); code != 0 {
		t.Errorf("merge of a refuted prediction: exit %d, want 0", code)
	}
	if code := runMerge([]string{hint, failing}); code != 2 {
		t.Errorf("merge with a test failing in every run: exit %d, want 2", code)
	}
}
