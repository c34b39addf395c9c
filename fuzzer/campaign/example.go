package campaign

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer/build"
)

// An Example fails by printing other output than its "// Output:" comment; the testing
// package then prints, after "--- FAIL: ExampleX", "got:", the output, "want:" (or "want
// (unordered):") and the expected output. It logs no line of the module, so the failure is
// anchored at the Example's declaration, its Output comment related. An Example whose
// output depends on the schedule (it passes in other runs) is then a flaky-failure like a
// test's: the message names the first line that differed in the run that found it.

// exampleFailure reads the got/want block of after (the lines after the "--- FAIL" line of
// Example test) into a flaky-failure; the zero Finding when there is none, or when the
// Example's declaration cannot be found in the package's directory.
func exampleFailure(bin *build.TestBinary, test string, after []string) analysis.Finding {
	if len(after) == 0 || strings.TrimSpace(after[0]) != "got:" {
		return analysis.Finding{}
	}
	var got, want []string
	in := &got
	ended, unordered := false, false
	for _, l := range after[1:] {
		switch {
		case in == &got && (l == "want:" || l == "want (unordered):"):
			in, unordered = &want, l == "want (unordered):"
			continue
		case in == &want && endsExampleOutput(l):
			ended = true
		}
		if ended {
			break
		}
		*in = append(*in, l)
	}
	if in != &want {
		return analysis.Finding{}
	}
	decl, output, ok := exampleDecl(bin.Dir, test)
	if !ok {
		return analysis.Finding{}
	}
	diff, comment := outputDiff(got, want), "// Output:"
	if unordered {
		diff, comment = unorderedDiff(got, want), "// Unordered output:"
	}
	f := analysis.Finding{Kind: "flaky-failure", Confidence: analysis.Actual,
		Message:   fmt.Sprintf("%s's output differs from its %s comment: %s", test, comment, diff),
		Positions: []analysis.Position{decl}}
	if output.Line > 0 {
		f.Positions = append(f.Positions, output)
	}
	return f
}

// endsExampleOutput reports whether l is the testing package's, after an Example's
// expected output, rather than a line of it.
func endsExampleOutput(l string) bool {
	for _, p := range []string{"=== ", "--- ", "FAIL\t", "ok  \t", "exit status ", "panic: "} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return l == "FAIL" || l == "PASS"
}

// outputDiff names the first line where got and want differ.
func outputDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("line %d is %q, want %q", i+1, clip(got[i]), clip(want[i]))
		}
	}
	switch {
	case len(got) > len(want):
		return fmt.Sprintf("%d lines, want %d (line %d is %q, not expected)", len(got), len(want), len(want)+1, clip(got[len(want)]))
	case len(got) < len(want):
		return fmt.Sprintf("%d lines, want %d (line %d, %q, is missing)", len(got), len(want), len(got)+1, clip(want[len(got)]))
	}
	return "the lines differ in order" // an unordered Output comment
}

// unorderedDiff names what an unordered Output comment lacks and what the output has too
// many of: the first line in got's order is no difference there (survey 10: golang-queue's
// ExampleNewPool_queueTaskTimeout was reported as `line 1 is "index: 0", want "index: 3"`,
// lines its comment allows in any order).
func unorderedDiff(got, want []string) string {
	count := map[string]int{}
	for _, l := range want {
		count[l]++
	}
	var extra []string
	for _, l := range got {
		if count[l] > 0 {
			count[l]--
		} else {
			extra = append(extra, l)
		}
	}
	var missing []string
	for _, l := range want { // in the comment's order
		if count[l] > 0 {
			count[l]--
			missing = append(missing, l)
		}
	}
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, fmt.Sprintf("missing %s", quoteLines(missing)))
	}
	if len(extra) > 0 {
		parts = append(parts, fmt.Sprintf("not expected %s", quoteLines(extra)))
	}
	if len(parts) == 0 {
		return "the same lines" // (the testing package compares them trimmed)
	}
	return strings.Join(parts, "; ")
}

// quoteLines quotes the first three lines and counts the rest.
func quoteLines(ls []string) string {
	var q []string
	for _, l := range ls[:min(len(ls), 3)] {
		q = append(q, fmt.Sprintf("%q", clip(l)))
	}
	s := strings.Join(q, ", ")
	if len(ls) > 3 {
		s += fmt.Sprintf(" and %d more", len(ls)-3)
	}
	return s
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

// exampleDecl finds `func <name>()` in the _test.go files of dir (testDecl), and the
// Output comment after it (Line 0 when it has none).
func exampleDecl(dir, name string) (decl, output analysis.Position, ok bool) {
	decl, ok = testDecl(dir, name) // silent.go
	if !ok {
		return decl, output, false
	}
	decl.Role, decl.Column = "example", 0
	fh, err := os.Open(decl.File)
	if err != nil {
		return decl, output, true
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for n := 1; sc.Scan(); n++ {
		if n <= decl.Line {
			continue
		}
		l := sc.Text()
		if strings.HasPrefix(l, "func ") || strings.HasPrefix(l, "}") {
			break // the Example ended without an Output comment
		}
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "// Output:") || strings.HasPrefix(t, "// Unordered output:") {
			output = analysis.Position{Role: "expected output", File: decl.File, Line: n}
			break
		}
	}
	return decl, output, true
}
