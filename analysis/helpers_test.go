package analysis

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// analyze encodes the built trace, reads it back (so every test also exercises the
// format) and analyzes it.
func analyze(t *testing.T, b *tracetest.Builder) *Result {
	t.Helper()
	tr, err := trace.Read(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return Analyze(tr)
}

// summary renders a finding as "kind confidence file:line [role file:line ...]".
func summary(f Finding) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s %s", f.Kind, f.Confidence)
	for i, p := range f.Positions {
		if i == 0 {
			fmt.Fprintf(&sb, " %s:%d", filepath.Base(p.File), p.Line)
			continue
		}
		fmt.Fprintf(&sb, " %s=%s:%d", p.Role, filepath.Base(p.File), p.Line)
	}
	return sb.String()
}

func summaries(r *Result) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, summary(f))
	}
	return out
}

// want asserts that some finding has kind, confidence and primary position at, and that
// each related "role=file:line" is among its positions; it returns that finding.
func want(t *testing.T, r *Result, kind string, conf Confidence, at string, related ...string) Finding {
	t.Helper()
	for _, f := range r.Findings {
		s := summary(f)
		if f.Kind != kind || f.Confidence != conf || !strings.HasPrefix(s, fmt.Sprintf("%s %s %s", kind, conf, at)) {
			continue
		}
		ok := true
		for _, rel := range related {
			if !strings.Contains(s, " "+rel) {
				ok = false
			}
		}
		if ok {
			return f
		}
	}
	t.Fatalf("no %s %s finding at %s %v; findings:\n  %s", conf, kind, at, related, strings.Join(summaries(r), "\n  "))
	return Finding{}
}

// wantNo asserts that there is no finding of the given kinds (none at all without kinds).
func wantNo(t *testing.T, r *Result, kinds ...string) {
	t.Helper()
	for _, f := range r.Findings {
		if len(kinds) == 0 || contains(kinds, f.Kind) {
			t.Errorf("unexpected finding: %s (%s)", summary(f), f.Message)
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
