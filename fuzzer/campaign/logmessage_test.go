package campaign

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/fuzzer/build"
	"github.com/goweave/goweave/fuzzer/run"
)

// The failure message says what went wrong, not the assertion library's decoration: the
// outputs below have the shapes testify, gomega, goleak, go-cmp style diffs and goconvey
// print (survey 9: "failed: Not equal:", "its last output: "]"", "4 total assertions").
func TestFailureMessageOfAssertionLibraries(t *testing.T) {
	bin, file := outcomeModule(t)
	src := "package w\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {\n" + strings.Repeat("\tt.Log()\n", 40) + "}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	tab := "        \t"
	cases := []struct {
		name, out, msg string
		line           int
	}{
		{"testify equal", "    w_test.go:9: \n" +
			tab + "Error Trace:\t" + file + ":9\n" +
			tab + "Error:      \tNot equal: \n" +
			tab + "            \texpected: 7\n" +
			tab + "            \tactual  : 8\n" +
			tab + "Test:       \tTestX\n" +
			tab + "Messages:   \tqueue length\n",
			"TestX failed: Not equal: expected: 7, actual: 8 (queue length)", 9},
		{"testify diff", "    w_test.go:10: \n" +
			tab + "Error Trace:\t" + file + ":10\n" +
			tab + "Error:      \tNot equal: \n" +
			tab + "            \texpected: pair{A:1}\n" +
			tab + "            \tactual  : pair{A:2}\n" +
			tab + "            \t\n" +
			tab + "            \tDiff:\n" +
			tab + "            \t--- Expected\n" +
			tab + "            \t+++ Actual\n" +
			tab + "Test:       \tTestX\n",
			"TestX failed: Not equal: expected: pair{A:1}, actual: pair{A:2}", 10},
		{"testify error in a subtest", "        w_test.go:11: \n" +
			"    " + tab + "Error Trace:\t" + file + ":11\n" +
			"    " + tab + "Error:      \tReceived unexpected error:\n" +
			"    " + tab + "            \tconnection reset\n" +
			"    " + tab + "Test:       \tTestX/sub\n",
			"TestX failed: Received unexpected error: connection reset", 11},
		{"gomega", "    w_test.go:12: \n" +
			"        Expected\n" +
			"            <int>: 4\n" +
			"        to equal\n" +
			"            <int>: 6\n",
			"TestX failed: Expected <int>: 4 to equal <int>: 6", 12},
		{"diff after a colon", "    w_test.go:13: state mismatch (-want +got):\n" +
			"          []string{\n" +
			"        - \t\"open\",\n" +
			"        + \t\"closed\",\n" +
			"          }\n",
			`TestX failed: state mismatch (-want +got): []string{ - "open", + "closed", }`, 13},
		{"goleak after the test's log", "    w_test.go:14: done\n" +
			"    leaks.go:78: found unexpected goroutines:\n" +
			"        [Goroutine 31 in state chan receive, with example.com/w.(*pool).worker on top of the stack:\n" +
			"        goroutine 31 [chan receive]:\n" +
			"        example.com/w.(*pool).worker(...)\n" +
			"        \t" + file + ":15\n" +
			"        \n" +
			"         Goroutine 32 in state select, with example.com/w.(*pool).tick on top of the stack:\n" +
			"        goroutine 32 [select]:\n" +
			"        \t" + file + ":16 +0x1d\n" +
			"        ]\n",
			"TestX failed: goleak found 2 unexpected goroutine(s): w.(*pool).worker (chan receive), w.(*pool).tick (select)", 5},
		{"testify values with commas", "    w_test.go:20: \n" +
			tab + "Error:      \tNot equal: \n" +
			tab + "            \texpected: []interface {}{1, 2, 5}\n" +
			tab + "            \tactual  : []interface {}{1, 2}\n",
			"TestX failed: Not equal: expected: []interface {}{1, 2, 5}, actual: []interface {}{1, 2}", 20},
		{"testify structs too long for one line", "    w_test.go:21: \n" +
			tab + "Error:      \tNot equal: \n" +
			tab + "            \texpected: w.Stats{Requests:0x3, Successes:0x2, Failures:0x0, Exclusions:0x0, Streak:0x2, Failed:0x0}\n" +
			tab + "            \tactual  : w.Stats{Requests:0x3, Successes:0x1, Failures:0x0, Exclusions:0x0, Streak:0x1, Failed:0x0}\n" +
			tab + "            \t\n" +
			tab + "            \tDiff:\n" +
			tab + "            \t--- Expected\n" +
			tab + "            \t+++ Actual\n" +
			tab + "            \t@@ -2,4 +2,4 @@\n" +
			tab + "            \t  Requests: (uint32) 3,\n" +
			tab + "            \t- Successes: (uint32) 2,\n" +
			tab + "            \t+ Successes: (uint32) 1,\n" +
			tab + "            \t- Streak: (uint32) 2,\n" +
			tab + "            \t+ Streak: (uint32) 1,\n" +
			tab + "Test:       \tTestX\n",
			"TestX failed: Not equal (-expected +actual): - Successes: (uint32) 2; + Successes: (uint32) 1; - Streak: (uint32) 2; + Streak: (uint32) 1", 21},
		{"goconvey failure", ".x\nFailures:\n\n" +
			"  * " + file + " \n" +
			"  Line 17:\n" +
			"  Expected: 5\n" +
			"  Actual:   3\n" +
			"  (Should equal)!\n\n" +
			"  * " + file + " \n" +
			"  Line 18:\n" +
			"  Expected: true\n" +
			"  Actual:   false\n\n\n" +
			"4 total assertions\n\n",
			"TestX failed: Expected: 5, Actual: 3 (Should equal) (the first of 2)", 17},
		{"goconvey panic", "E\nErrors:\n\n" +
			"  * " + file + " \n" +
			"  Line 19: - assignment to entry in nil map \n" +
			"  goroutine 23 [running]:\n" +
			"  \t/root/go/pkg/mod/github.com/smartystreets/goconvey@v1.8.1/convey/context.go:253 +0xb9\n\n\n" +
			"1 total assertion\n\n",
			"TestX failed: panic: assignment to entry in nil map", 19},
	}
	for _, c := range cases {
		out := "=== RUN   TestX\n" + c.out + "--- FAIL: TestX (0.01s)\nFAIL\n"
		fs := outcomeFindings(bin, "TestX", &run.Run{Status: run.StatusFail, Output: out})
		if len(fs) != 1 {
			t.Errorf("%s: %d findings, want 1", c.name, len(fs))
			continue
		}
		if fs[0].Message != c.msg || fs[0].Positions[0].Line != c.line || fs[0].Positions[0].File != file {
			t.Errorf("%s: %q at %s:%d\nwant %q at line %d", c.name, fs[0].Message, filepath.Base(fs[0].Positions[0].File), fs[0].Positions[0].Line, c.msg, c.line)
		}
	}
}

// A log line in a file of another package (a helper that does not call t.Helper) is the
// failure when the test logged nothing itself: its message, at the test's declaration.
func TestFailureLoggedInAnotherPackage(t *testing.T) {
	bin, file := outcomeModule(t)
	if err := os.WriteFile(file, []byte("package w\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := "=== RUN   TestX\n    check.go:40: want 3 replicas, have 2\n--- FAIL: TestX (0.01s)\nFAIL\n"
	fs := outcomeFindings(&build.TestBinary{Package: bin.Package, Dir: bin.Dir, Module: bin.Module}, "TestX", &run.Run{Status: run.StatusFail, Output: out})
	if len(fs) != 1 || fs[0].Message != "TestX failed: want 3 replicas, have 2" || fs[0].Positions[0].Line != 5 {
		t.Errorf("findings %+v, want the helper's message at the test's declaration", fs)
	}
}
