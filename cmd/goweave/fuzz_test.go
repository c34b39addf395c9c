package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer"
	"github.com/goweave/goweave/internal/wants"
)

func TestParseShard(t *testing.T) {
	for in, want := range map[string]fuzzer.Shard{"0/1": {Index: 0, Count: 1}, "2/4": {Index: 2, Count: 4}} {
		got, err := parseShard(in)
		if err != nil || got != want {
			t.Errorf("parseShard(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "1", "4/4", "-1/2", "1/0", "a/b", "1/2/3"} {
		if _, err := parseShard(bad); err == nil {
			t.Errorf("parseShard(%q) accepted", bad)
		}
	}
}

var sampleFindings = []fuzzer.Finding{
	{
		Finding: analysis.Finding{
			Kind: "send-on-closed", Confidence: analysis.Predicted, Severity: analysis.SeverityError,
			Message: "send may happen after close", Fingerprint: "fp1",
			Positions: []analysis.Position{
				{Role: "send", File: "/src/app/log.go", Line: 30, Column: 12},
				{Role: "close", File: "/src/app/log.go", Line: 34, Column: 2},
			},
			Package: "app", Test: "TestLog",
		},
		ID: "GW1", Run: 3, Strategy: "record", Trace: "/out/run-000003.trace", SeenIn: 4, OfRuns: 5,
		Related: []fuzzer.Related{
			{ID: "GW3", Kind: "send-on-closed", Confidence: analysis.Actual},
			{ID: "GW4", Kind: "flaky-panic", Confidence: analysis.Actual},
			{ID: "GW5", Kind: "send-on-closed", Confidence: analysis.Actual},
		},
	},
	{
		Finding: analysis.Finding{
			Kind: "leak-chan", Confidence: analysis.Actual, Severity: analysis.SeverityWarning,
			Message: "goroutine blocked forever in send", Fingerprint: "fp2",
			Positions: []analysis.Position{{Role: "blocked", File: "/elsewhere/q.go", Line: 7}},
		},
		ID: "GW2", Run: 1, Strategy: "record",
	},
}

func TestPrintFindingsLikeGoVet(t *testing.T) {
	var b bytes.Buffer
	printFindings(&b, sampleFindings, textOptions{cwd: "/src"})
	want := "app/log.go:30:12: send-on-closed: send may happen after close\n" +
		"\tapp/log.go:34:2: close\n" +
		"\tGW1: predicted, predicted in 4 of 5 runs, first in record run 3 of app.TestLog; replay: goweave replay GW1\n" +
		"\talso reported as 2 send-on-closed (actual), 1 flaky-panic (actual)\n" +
		"/elsewhere/q.go:7: leak-chan: goroutine blocked forever in send\n" +
		"\tGW2: actual, first in record run 1; replay: goweave replay GW2\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// Each finding's trace path is printed only with -v; the replay command names the -o
// directory the campaign wrote to, quoted for the shell.
func TestPrintFindingsVerbose(t *testing.T) {
	var b bytes.Buffer
	printFindings(&b, sampleFindings[:1], textOptions{cwd: "/src", outDir: "/tmp/my out", verbose: true})
	want := "app/log.go:30:12: send-on-closed: send may happen after close\n" +
		"\tapp/log.go:34:2: close\n" +
		"\tGW1: predicted, predicted in 4 of 5 runs, first in record run 3 of app.TestLog; replay: goweave replay -o '/tmp/my out' GW1\n" +
		"\talso reported as 2 send-on-closed (actual), 1 flaky-panic (actual)\n" +
		"\ttrace: /out/run-000003.trace\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestPrintUnhealthyTests(t *testing.T) {
	var b bytes.Buffer
	printUnhealthyTests(&b, []fuzzer.TestResult{
		{Package: "p", Test: "TestOK", Runs: 5, Statuses: map[string]int{"pass": 5}},
		{Package: "p", Test: "TestFlaky", Runs: 9, Statuses: map[string]int{"pass": 6, "deadlock": 1, "panic": 2}},
	})
	if want := "goweave: p.TestFlaky: 2 panic, 1 deadlock in 9 runs\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// The SARIF has what GitHub code scanning requires: version 2.1.0, one run whose driver is
// goweave with one rule per kind, and results that name their rule by id and index, carry a
// level and message, and point at repository-relative files.
func TestSARIF(t *testing.T) {
	data, err := json.Marshal(sarifFor(append(sampleFindings, sampleFindings[0]), "/src"))
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string `json:"version"`
		Schema  string `json:"$schema"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID               string `json:"id"`
						ShortDescription struct{ Text string }
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI       string `json:"uri"`
							URIBaseID string `json:"uriBaseId"`
						} `json:"artifactLocation"`
						Region struct {
							StartLine   int `json:"startLine"`
							StartColumn int `json:"startColumn"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				RelatedLocations []struct {
					ID      int `json:"id"`
					Message struct{ Text string }
				} `json:"relatedLocations"`
				PartialFingerprints map[string]string `json:"partialFingerprints"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || !strings.Contains(log.Schema, "sarif-2.1.0") || len(log.Runs) != 1 {
		t.Fatalf("header: %s", data)
	}
	run := log.Runs[0]
	if run.Tool.Driver.Name != "goweave" || len(run.Tool.Driver.Rules) != 2 {
		t.Fatalf("driver %+v: want goweave with one rule per kind", run.Tool.Driver)
	}
	// Rules are described by their detector's documentation, first sentence first.
	if d, rule := analysis.Lookup("send-on-closed"), run.Tool.Driver.Rules[0]; d == nil || rule.ID != "send-on-closed" ||
		!strings.HasPrefix(strings.Join(strings.Fields(d.Doc), " "), rule.ShortDescription.Text) || !strings.HasSuffix(rule.ShortDescription.Text, ".") {
		t.Errorf("rule %+v does not start the detector's doc", rule)
	}
	if len(run.Results) != 3 {
		t.Fatalf("%d results, want 3", len(run.Results))
	}
	for _, r := range run.Results {
		if run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID || r.Level == "" || r.Message.Text == "" || len(r.Locations) != 1 {
			t.Errorf("result %+v", r)
		}
	}
	first := run.Results[0]
	loc := first.Locations[0].PhysicalLocation
	if loc.ArtifactLocation.URI != "app/log.go" || loc.ArtifactLocation.URIBaseID != "%SRCROOT%" || loc.Region.StartLine != 30 || loc.Region.StartColumn != 12 {
		t.Errorf("primary location %+v", loc)
	}
	if first.Level != "error" || run.Results[1].Level != "warning" {
		t.Errorf("levels %s, %s", first.Level, run.Results[1].Level)
	}
	if len(first.RelatedLocations) != 1 || first.RelatedLocations[0].Message.Text != "close" || first.RelatedLocations[0].ID != 1 {
		t.Errorf("related %+v", first.RelatedLocations)
	}
	if first.PartialFingerprints["goweave/v1"] != "fp1" {
		t.Errorf("fingerprints %v", first.PartialFingerprints)
	}
}

// goweave fuzz over the examples: JSON with a test entry per example test, every bug found
// on its annotated line (the actual deadlock only when a run got stuck), nothing elsewhere,
// exit status 1, and SARIF with the same findings.
func TestFuzzCommandExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and fuzzes the examples")
	}
	dir, _ := filepath.Abs("../../examples")
	sarif := filepath.Join(t.TempDir(), "out.sarif")
	out := t.TempDir()
	stdout, stderr, code := runGoweave(t, dir, "fuzz", "-json", "-v", "-runs", "3", "-sarif", sarif, "-o", out, "./...")
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if len(rep.Tests) != 4 {
		t.Errorf("%d tests, want the 4 examples: %+v", len(rep.Tests), rep.Tests)
	}
	for _, tr := range rep.Tests {
		if tr.Runs < 3 {
			t.Errorf("%s: %d runs, want 3 (and confirmations)", tr.Test, tr.Runs)
		}
	}
	if code != 1 {
		t.Errorf("exit %d with %d findings, want 1; stderr:\n%s", code, len(rep.Findings), stderr)
	}
	// -v: one line per run on stderr; each finding's run logged it as new.
	runs := 0 // 3 per test, and confirmations of predicted findings beyond the budget
	for _, tr := range rep.Tests {
		runs += tr.Runs
	}
	if n := strings.Count(stderr, " run "); n != runs {
		t.Errorf("-v printed %d run lines, want one per run (%d):\n%s", n, runs, stderr)
	}
	for _, f := range rep.Findings {
		line := fmt.Sprintf(".%s run %d %s", f.Test, f.Run, f.Strategy)
		newAt := fmt.Sprintf("%s at %s:%d", f.Kind, filepath.Base(f.Positions[0].File), f.Positions[0].Line)
		if !strings.Contains(stderr, line) || !strings.Contains(stderr, newAt) {
			t.Errorf("-v output lacks %q or %q:\n%s", line, newAt, stderr)
		}
	}
	for _, f := range rep.Findings {
		// What the editor shows too (lsp uses analysis.SeverityOf): a confirmed finding is an error.
		if want := analysis.SeverityOf(f.Kind, f.Confidence); f.Severity != want {
			t.Errorf("%s %s (%s): severity %s, want %s", f.ID, f.Kind, f.Confidence, f.Severity, want)
		}
		for _, p := range f.Positions {
			if p.Column < 1 {
				t.Errorf("%s %s: position %+v has no column", f.ID, f.Kind, p)
			}
		}
	}
	for _, m := range checkAgainstWants(t, dir, rep.Findings) {
		if m.Kind != "deadlock" {
			t.Errorf("missing %s", m)
		}
	}
	// One bug, one finding: the examples have 4 bugs.
	var kinds []string
	for _, f := range rep.Findings {
		kinds = append(kinds, f.Kind)
	}
	if want := []string{"negative-waitgroup", "cyclic-deadlock", "send-on-closed", "leak-chan"}; !slices.Equal(kinds, want) {
		t.Errorf("findings %v, want one per bug: %v", kinds, want)
	}
	for _, f := range rep.Findings {
		for _, r := range f.Related { // grouped findings keep their recipes
			if _, err := fuzzer.FindRecipe(out, dir, r.ID); err != nil {
				t.Errorf("%s (%s, grouped into %s): %v", r.ID, r.Kind, f.ID, err)
			}
		}
	}
	data, err := os.ReadFile(sarif)
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct{ Results []json.RawMessage }
	}
	if err := json.Unmarshal(data, &log); err != nil || len(log.Runs) != 1 || len(log.Runs[0].Results) != len(rep.Findings) {
		t.Errorf("SARIF has %v results for %d findings (err %v)", log.Runs, len(rep.Findings), err)
	}
	checkJSONSchema(t, []byte(stdout), data)

	// The text output of the next campaign (continuing this one): the same 4 findings,
	// each with its ID and the command that replays it.
	text, stderr, _ := runGoweave(t, dir, "fuzz", "-runs", "1", "-o", out, "./...")
	headline := regexp.MustCompile(`(?m)^\S+\.go:\d+:\d+: ([a-z-]+): `)
	if n := len(headline.FindAllString(text, -1)); n != 4 {
		t.Errorf("text output has %d findings, want 4:\n%s\nstderr:\n%s", n, text, stderr)
	}
	for _, f := range rep.Findings {
		if !strings.Contains(text, "\t"+f.ID+": ") || !strings.Contains(text, "; replay: goweave replay -o "+out+" "+f.ID+"\n") {
			t.Errorf("text output lacks %s and its replay command:\n%s", f.ID, text)
		}
	}
	if strings.Contains(text, ".trace") {
		t.Errorf("text output names traces without -v:\n%s", text)
	}
	// Not on a terminal (a pipe, as in CI): a line as each test starts and ends.
	for _, tr := range rep.Tests {
		name := regexp.QuoteMeta(tr.Package + "." + tr.Test)
		if !regexp.MustCompile(`(?m)^goweave: `+name+`: started$`).MatchString(stderr) ||
			!regexp.MustCompile(`(?m)^goweave: `+name+`: \d+ runs? in [0-9.]+m?s, \d+ bugs?; `).MatchString(stderr) {
			t.Errorf("stderr lacks the start and end lines of %s:\n%s", name, stderr)
		}
	}
}

// checkAgainstWants matches findings against the `// want` annotations of every package
// directory below root: nothing may be reported off an annotated line.
func checkAgainstWants(t *testing.T, root string, findings []fuzzer.Finding) (missing []wants.Expectation) {
	t.Helper()
	reports := wantReports(findings)
	dirs, _ := filepath.Glob(filepath.Join(root, "*", "*.go"))
	seen := map[string]bool{}
	for _, file := range dirs {
		dir := filepath.Dir(file)
		if seen[dir] {
			continue
		}
		seen[dir] = true
		a, err := wants.ParseDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		res := a.Match(reports)
		for _, u := range res.Unexpected {
			t.Errorf("unexpected %s at %s:%d", u.Kind, filepath.Base(u.File), u.Line)
		}
		missing = append(missing, res.Missing...)
	}
	return missing
}

// A confirmed prediction says what its confirmation run showed.
func TestPrintFindingsConfirmation(t *testing.T) {
	f := sampleFindings[1]
	f.Kind, f.Confidence = "cyclic-deadlock", analysis.Confirmed
	f.Confirmation = "confirmed: deadlock: lock cycle in the run's final state: ..."
	var b bytes.Buffer
	printFindings(&b, []fuzzer.Finding{f}, textOptions{cwd: "/src"})
	if want := "\tconfirmation: confirmed: deadlock: lock cycle in the run's final state: ...\n"; !strings.Contains(b.String(), want) {
		t.Errorf("got\n%s\nwant a line %q", b.String(), want)
	}
}
