package campaign

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer/build"
)

// A test can fail without logging through t: assertion libraries that print their
// message with fmt.Printf and call t.FailNow (gopkg.in/go-playground/assert.v1), a bare
// t.Fail, a t.FailNow after a log.Printf. The output then has "--- FAIL" and no
// "file.go:N: message" line of the testing package. Such a run still failed: dropping it
// reported "0 bugs" for a test failing in some of its runs (survey 8, go-playground/pool).

// fileLine finds "name.go:N" anywhere in a line of output.
var fileLine = regexp.MustCompile(`([^\s:"'()]+\.go):(\d+)`)

// unloggedFailure is the flaky-failure of a test whose output before its "--- FAIL" line
// (before) has no t.Error line: anchored at the last "file.go:N" of the package's files the
// output names (an assertion library's own report of its caller), else at the test's
// declaration; the last line the test printed is the message. goconvey's report says more
// (convey.go): its failed assertion, at its line.
func unloggedFailure(bin *build.TestBinary, test string, before []string) analysis.Finding {
	if msg, at, ok := conveyFailure(before); ok {
		if at.File == "" {
			at, _ = testDecl(bin.Dir, strings.SplitN(test, "/", 2)[0])
		}
		if at.File != "" {
			return analysis.Finding{Kind: "flaky-failure", Confidence: analysis.Actual,
				Message: fmt.Sprintf("%s failed: %s", test, msg), Positions: []analysis.Position{at}}
		}
	}
	msg := ""
	for i := len(before) - 1; i >= 0 && msg == ""; i-- {
		l := strings.TrimSpace(before[i])
		if l != "" && !strings.HasPrefix(l, "=== ") && !strings.HasPrefix(l, "--- ") {
			msg = l
		}
	}
	var at analysis.Position
	for i := len(before) - 1; i >= 0 && at.File == ""; i-- {
		ms := fileLine.FindAllStringSubmatch(before[i], -1)
		for j := len(ms) - 1; j >= 0; j-- {
			file := ms[j][1]
			if !filepath.IsAbs(file) {
				file = filepath.Join(bin.Dir, filepath.Base(file))
			} else if _, in := below(bin.Module, file); bin.Module != "" && !in {
				continue // a goroutine dump's runtime frame, a dependency's file
			}
			if _, err := os.Stat(file); err != nil {
				continue
			}
			n, _ := strconv.Atoi(ms[j][2])
			at = position("failure", stackFrame{file: file, line: n})
			break
		}
	}
	if at.File == "" {
		decl, ok := testDecl(bin.Dir, strings.SplitN(test, "/", 2)[0])
		if !ok {
			return analysis.Finding{}
		}
		at = decl
	}
	what := "without a message from t.Error or t.Fatal"
	if msg != "" {
		what += fmt.Sprintf("; its last output: %q", msg)
	}
	return analysis.Finding{Kind: "flaky-failure", Confidence: analysis.Actual,
		Message:   fmt.Sprintf("%s failed %s", test, what),
		Positions: []analysis.Position{at}}
}

// testDecl is the position of the declaration of test (or Example) function name in dir's
// test files.
func testDecl(dir, name string) (analysis.Position, bool) {
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	for _, file := range files {
		fh, err := os.Open(file)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		for n := 1; sc.Scan(); n++ {
			if strings.HasPrefix(sc.Text(), "func "+name+"(") {
				fh.Close()
				return analysis.Position{Role: "failure", File: file, Line: n, Column: 6}, true
			}
		}
		fh.Close()
	}
	return analysis.Position{}, false
}
