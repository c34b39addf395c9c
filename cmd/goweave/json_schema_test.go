package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis"
)

// jsonSchema is docs/json.md's tables: object name -> field -> always present.
func jsonSchema(t *testing.T) map[string]map[string]bool {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "docs", "json.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	schema := map[string]map[string]bool{}
	var object string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "### "); ok {
			object = name
			schema[object] = map[string]bool{}
			continue
		}
		cells := strings.Split(line, "|")
		if object == "" || len(cells) < 5 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		schema[object][strings.Trim(strings.TrimSpace(cells[1]), "`")] = strings.TrimSpace(cells[3]) == "yes"
	}
	return schema
}

// checkJSONSchema checks a goweave fuzz -json report against docs/json.md: no field the
// document does not list, every "always" field present, a column on every position, and
// each finding's severity the one rule's (analysis.SeverityOfFinding). sarif, when given, must
// give each finding the level of its severity.
func checkJSONSchema(t *testing.T, report []byte, sarif []byte) {
	t.Helper()
	schema := jsonSchema(t)
	for _, name := range []string{"Report", "Finding", "Position", "Related", "Goroutine", "Test"} {
		if len(schema[name]) == 0 {
			t.Fatalf("docs/json.md has no %s table", name)
		}
	}
	var check func(object string, v any, where string)
	check = func(object string, v any, where string) {
		m, ok := v.(map[string]any)
		if !ok {
			t.Errorf("%s: %T, want an object (%s)", where, v, object)
			return
		}
		for field := range m {
			if _, ok := schema[object][field]; !ok {
				t.Errorf("%s: field %q is not in docs/json.md's %s table", where, field, object)
			}
		}
		for field, always := range schema[object] {
			if _, ok := m[field]; always && !ok {
				t.Errorf("%s: %s field %q missing", where, object, field)
			}
		}
		each := func(field, of string) {
			list, _ := m[field].([]any)
			for i, x := range list {
				check(of, x, fmt.Sprintf("%s.%s[%d]", where, field, i))
			}
		}
		switch object {
		case "Report":
			each("findings", "Finding")
			each("tests", "Test")
			each("unfinished", "Unfinished")
			if b, ok := m["budget"]; ok {
				check("Budget", b, where+".budget")
			}
		case "Finding":
			each("positions", "Position")
			each("related", "Related")
			each("goroutines", "Goroutine")
			kind, _ := m["kind"].(string)
			conf, _ := m["confidence"].(string)
			testOnly, _ := m["test_only"].(bool)
			var timing *analysis.Timing
			if tm, ok := m["timing"]; ok {
				check("Timing", tm, where+".timing")
				timing = &analysis.Timing{}
			}
			rule := analysis.SeverityOfFinding(&analysis.Finding{Kind: kind, Confidence: analysis.Confidence(conf), TestOnly: testOnly, Timing: timing})
			if sev, _ := m["severity"].(string); sev != string(rule) {
				t.Errorf("%s: %s %s has severity %s", where, conf, kind, sev)
			}
		case "Related":
			check("Position", m["position"], where+".position")
		case "Timing":
			check("Position", m["at"], where+".at")
			check("Position", m["heldAt"], where+".heldAt")
			check("Goroutine", m["waiter"], where+".waiter")
			check("Goroutine", m["delayed"], where+".delayed")
		case "Position":
			if _, ok := m["column"]; !ok {
				t.Errorf("%s: no column", where)
			}
		}
	}
	var rep any
	if err := json.Unmarshal(report, &rep); err != nil {
		t.Fatal(err)
	}
	check("Report", rep, "report")

	if sarif == nil {
		return
	}
	var findings struct {
		Findings []struct{ Fingerprint, Severity string }
	}
	var log struct {
		Runs []struct {
			Results []struct {
				Level               string
				PartialFingerprints map[string]string
			}
		}
	}
	if err := json.Unmarshal(report, &findings); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(sarif, &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("SARIF: %v", err)
	}
	level := map[string]string{}
	for _, r := range log.Runs[0].Results {
		level[r.PartialFingerprints["goweave/v1"]] = r.Level
	}
	for _, f := range findings.Findings {
		if level[f.Fingerprint] != f.Severity {
			t.Errorf("finding %s: SARIF level %q, JSON severity %q", f.Fingerprint, level[f.Fingerprint], f.Severity)
		}
	}
}
