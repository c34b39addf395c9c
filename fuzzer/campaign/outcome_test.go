package campaign

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer/build"
	"github.com/goweave/goweave/fuzzer/run"
)

// A module with one test file whose lines the outputs below point at.
func outcomeModule(t *testing.T) (*build.TestBinary, string) {
	dir := t.TempDir()
	file := filepath.Join(dir, "w_test.go")
	src := "package w\n" + strings.Repeat("\tx := 1\n", 40)
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return &build.TestBinary{Package: "example.com/w", Dir: dir, Module: dir}, file
}

func TestOutcomePanic(t *testing.T) {
	bin, file := outcomeModule(t)
	out := "=== RUN   TestX\n" +
		"panic: runtime error: invalid memory address or nil pointer dereference\n" +
		"[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4f1c2a]\n\n" +
		"goroutine 9 [running]:\n" +
		"example.com/w.(*server).read(...)\n\t" + file + ":12\n" +
		"example.com/w.TestX.func1()\n\t" + file + ":20 +0x2a\n" +
		"created by example.com/w.TestX in goroutine 7\n\t" + file + ":18 +0x7c\n" +
		"exit status 2\n"
	fs := outcomeFindings(bin, "TestX", &run.Run{Status: run.StatusPanic, Output: out, Panic: "runtime error: invalid memory address or nil pointer dereference"})
	if len(fs) != 1 {
		t.Fatalf("%d findings, want 1", len(fs))
	}
	f := fs[0]
	if f.Kind != "flaky-panic" || len(f.Positions) != 2 || f.Positions[0].Line != 12 || f.Positions[0].Column != 2 || f.Positions[1].Line != 20 || f.Positions[1].Role != "called from" {
		t.Errorf("finding %+v, want flaky-panic at line 12:2, called from line 20 (not the go statement)", f)
	}
	if !strings.Contains(f.Message, "TestX panicked at w_test.go:12: runtime error: invalid memory address") || f.Test != "TestX" || !strings.HasPrefix(f.Fingerprint, outcomePrefix) {
		t.Errorf("message %q, test %q, fingerprint %q", f.Message, f.Test, f.Fingerprint)
	}
	// A panic in code outside the module only: nothing to anchor a report at.
	std := "panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n\t/usr/lib/go/src/x.go:3 +0x1\n"
	if fs := outcomeFindings(bin, "TestX", &run.Run{Status: run.StatusPanic, Output: std}); len(fs) != 0 {
		t.Errorf("panic outside the module: %+v", fs)
	}
	// ... except the test's declaration: a panic in a dependency's goroutine is not silent.
	if err := os.WriteFile(file, []byte("package w\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dep := "panic: close of nil channel\n\ngoroutine 12 [running]:\nexample.com/dep.(*Pool).stop(...)\n\t/root/go/pkg/mod/example.com/dep@v1.2.0/pool.go:88 +0x1d\n" +
		"created by example.com/dep.New in goroutine 7\n\t/root/go/pkg/mod/example.com/dep@v1.2.0/pool.go:40 +0x9c\n"
	fs = outcomeFindings(bin, "TestX", &run.Run{Status: run.StatusPanic, Output: dep, Panic: "close of nil channel"})
	if len(fs) != 1 || fs[0].Positions[0].Line != 5 || fs[0].Message != "TestX panicked outside the module, in dep.(*Pool).stop at pool.go:88: close of nil channel" {
		t.Errorf("panic in a dependency's goroutine: %+v, want a flaky-panic at the test's declaration naming where", fs)
	}
}

func TestOutcomeFailure(t *testing.T) {
	bin, _ := outcomeModule(t)
	out := "=== RUN   TestX\n" +
		"    w_test.go:5: starting\n" +
		"    w_test.go:9: total 18, want at most 17\n" +
		"--- FAIL: TestX (0.01s)\n" +
		"    other_test.go:3: not a file of the package\n" +
		"FAIL\n"
	fs := outcomeFindings(bin, "TestX", &run.Run{Status: run.StatusFail, Output: out})
	if len(fs) != 1 || fs[0].Kind != "flaky-failure" || fs[0].Positions[0].Line != 9 || fs[0].Message != "TestX failed: total 18, want at most 17" {
		t.Errorf("findings %+v, want flaky-failure at the last log line before --- FAIL", fs)
	}
	if fs := outcomeFindings(bin, "TestX", &run.Run{Status: run.StatusPass, Output: out}); len(fs) != 0 {
		t.Errorf("a passing run: %+v", fs)
	}
	// Failed by the race detector after a t.Log: the race's findings tell, not the log line.
	raced := "=== RUN   TestX\n" +
		"==================\nWARNING: DATA RACE\n==================\n" +
		"    w_test.go:9: session: <nil>\n" +
		"    testing.go:1712: race detected during execution of test\n" +
		"--- FAIL: TestX (0.01s)\n" +
		"FAIL\n"
	if fs := outcomeFindings(bin, "TestX", &run.Run{Status: run.StatusFail, Output: raced}); len(fs) != 0 {
		t.Errorf("a test failed by the race detector: %+v, want no flaky-failure", fs)
	}
}

// A test failed without a t.Error line (an assertion library that prints with fmt.Printf
// and calls t.FailNow): still a flaky-failure, at the file:line the output names, else at
// the test's declaration; not for a failure without the test's "--- FAIL" line.
func TestOutcomeUnloggedFailure(t *testing.T) {
	bin, file := outcomeModule(t)
	src := "package w\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {\n\tt.FailNow()\n}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	named := "=== RUN   TestX\nw_test.go:6: 4 should not be equal 4\n--- FAIL: TestX (0.00s)\nFAIL\n"
	fs := outcomeFindings(bin, "TestX", &run.Run{Status: run.StatusFail, Output: named})
	if len(fs) != 1 || fs[0].Kind != "flaky-failure" || fs[0].Positions[0].Line != 6 ||
		fs[0].Message != `TestX failed without a message from t.Error or t.Fatal; its last output: "w_test.go:6: 4 should not be equal 4"` {
		t.Errorf("findings %+v, want a flaky-failure at the line the output names", fs)
	}
	bare := "=== RUN   TestX\n--- FAIL: TestX (0.00s)\nFAIL\n"
	fs = outcomeFindings(bin, "TestX", &run.Run{Status: run.StatusFail, Output: bare})
	if len(fs) != 1 || fs[0].Positions[0].Line != 5 || fs[0].Message != "TestX failed without a message from t.Error or t.Fatal" {
		t.Errorf("findings %+v, want a flaky-failure at the test's declaration (line 5)", fs)
	}
	// The process failed after the tests (TestMain's exit code, a leak checker): no test's.
	if fs := outcomeFindings(bin, "TestX", &run.Run{Status: run.StatusFail, Output: "=== RUN   TestX\n--- PASS: TestX (0.00s)\nFAIL\n"}); len(fs) != 0 {
		t.Errorf("a failure that is not the test's: %+v", fs)
	}
}

// Failures logged in a helper that does not call t.Helper are each calling test's: one
// finding per test, not one named for whichever test failed first; failures in the Test
// function itself keep their fingerprint (a line is then one test's anyway).
func TestOutcomeFailureInHelperIsPerTest(t *testing.T) {
	bin, file := outcomeModule(t)
	src := "package w\n\nimport \"testing\"\n\nfunc check(t *testing.T, ok bool) {\n\tif !ok {\n\t\tt.Error(\"not ok\")\n\t}\n}\n\n" +
		"func TestA(t *testing.T) { check(t, false) }\n\nfunc TestB(t *testing.T) {\n\tcheck(t, false)\n\tt.Error(\"own\")\n}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	fp := func(test string, line int) string {
		out := "=== RUN   " + test + "\n    w_test.go:" + strconv.Itoa(line) + ": not ok\n--- FAIL: " + test + " (0.00s)\n"
		fs := outcomeFindings(bin, test, &run.Run{Status: run.StatusFail, Output: out})
		if len(fs) != 1 {
			t.Fatalf("%s: %d findings", test, len(fs))
		}
		return fs[0].Fingerprint
	}
	if fp("TestA", 7) == fp("TestB", 7) {
		t.Error("the helper's failure in TestA and TestB has one fingerprint")
	}
	// Inside TestB itself: the fingerprint does not depend on the test's name (stable IDs).
	f := analysis.Finding{Kind: "flaky-failure", Package: "example.com/w", Test: "TestB", Positions: []analysis.Position{{Role: "failure", File: file, Line: 15}}}
	g := f
	g.Test = "TestRenamed"
	if outcomeFingerprint(f, bin.Module) != outcomeFingerprint(g, bin.Module) {
		t.Error("a failure in the Test function changed fingerprint with the test's name")
	}
}

// The goroutine dump of a run stopped at its time limit: the test goroutine's place (not
// the testing package's main goroutine), the module's other goroutines once per line.
func TestOutcomeHang(t *testing.T) {
	bin, file := outcomeModule(t)
	out := "=== RUN   TestX\nSIGQUIT: quit\nPC=0x496301 m=0 sigcode=0\n\n" +
		"goroutine 1 gp=0xc000002380 m=nil [chan receive]:\n" +
		"runtime.gopark(0x4f1438?, 0x6ea240?)\n\t/usr/local/go/src/runtime/proc.go:462 +0xce fp=0xf8 sp=0xf8 pc=0x48d8ae\n" +
		"testing.(*T).Run(0xf89eaea6248, {0x592abb?, 0x0?}, 0x59e5d8)\n\t/usr/local/go/src/testing/testing.go:2109 +0x4fb fp=0xf8 sp=0xf8 pc=0x4f5a3b\n\n" +
		"goroutine 7 gp=0xc000003500 m=nil [chan receive, 2 minutes]:\n" +
		"runtime.chanrecv1(0xf89eae98510, 0x0)\n\t/usr/local/go/src/runtime/chan.go:509 +0x3d fp=0xf8 sp=0xf8 pc=0x41663d\n" +
		"example.com/w_test.TestX(0xf89eaea6488?)\n\t" + file + ":22 +0x39 fp=0xf8 sp=0xf8 pc=0x538159\n" +
		"testing.tRunner(0xf89eaea6488, 0x59e5d8)\n\t/usr/local/go/src/testing/testing.go:2036 +0xea fp=0xf8 sp=0xf8 pc=0x4f4a4a\n\n" +
		"goroutine 8 gp=0xc000003600 m=nil [sleep]:\n" +
		"time.Sleep(0x989680)\n\t/usr/local/go/src/runtime/time.go:363 +0x165\n" +
		"example.com/w_test.TestX.func1()\n\t" + file + ":19 +0x18\n" +
		"created by example.com/w_test.TestX in goroutine 7\n\t" + file + ":17 +0x2d\n\n" +
		"goroutine 9 gp=0xc000003700 m=nil [sleep]:\n" +
		"example.com/w_test.TestX.func1()\n\t" + file + ":19 +0x18\n\n" +
		"rax    0xca\n"
	fs := outcomeFindings(bin, "TestX", &run.Run{Status: run.StatusTimeout, Output: out, Elapsed: 3100 * time.Millisecond})
	if len(fs) != 1 {
		t.Fatalf("%d findings, want 1", len(fs))
	}
	f := fs[0]
	if f.Kind != "hang" || len(f.Positions) != 2 || f.Positions[0].Line != 22 || f.Positions[0].Role != "test goroutine (chan receive)" || f.Positions[1].Line != 19 {
		t.Errorf("positions %+v, want the test goroutine at 22 and the sleepers at 19 once", f.Positions)
	}
	want := "TestX did not finish within its 3s time limit: the test goroutine was waiting (chan receive) at w_test.go:22, with 2 other goroutine(s) of the module"
	if f.Message != want {
		t.Errorf("message %q, want %q", f.Message, want)
	}
	// Hangs of one test share a fingerprint wherever the test stopped.
	spin := strings.Replace(out, file+":22", file+":23", 1)
	if g := outcomeFindings(bin, "TestX", &run.Run{Status: run.StatusTimeout, Output: spin}); len(g) != 1 || g[0].Fingerprint != f.Fingerprint {
		t.Errorf("hang stopped elsewhere: %+v, want fingerprint %s", g, f.Fingerprint)
	}
}

// Symptoms are reported when the other runs make them worth it: a panic when the test also
// passed, a hang when it timed out in at least half of its runs.
func TestWorthReporting(t *testing.T) {
	bin := &build.TestBinary{Package: "p"}
	flaky := &testState{bin: bin, name: "TestFlaky", runs: 10, statuses: map[string]int{"pass": 9, "panic": 1}}
	always := &testState{bin: bin, name: "TestAlways", runs: 10, statuses: map[string]int{"panic": 10}}
	slow := &testState{bin: bin, name: "TestSlow", runs: 10, statuses: map[string]int{"pass": 6, "timeout": 4}}
	hung := &testState{bin: bin, name: "TestHung", runs: 4, statuses: map[string]int{"timeout": 2, "pass": 2}}
	once := &testState{bin: bin, name: "TestSlowerThanTheLimit", runs: 1, statuses: map[string]int{"timeout": 1}}
	noTrace := &testState{bin: bin, name: "TestNoTraceCameBack", runs: 1, statuses: map[string]int{"timeout": 1}}
	c := &campaign{tests: []*testState{flaky, always, slow, hung, once, noTrace}}
	for _, x := range []struct {
		kind, test string
		want       bool
	}{
		{"flaky-panic", "TestFlaky", true},
		{"flaky-panic", "TestAlways", false},
		{"hang", "TestSlow", false},
		{"hang", "TestHung", true},
		{"hang", "TestSlowerThanTheLimit", false},
		{"send-on-closed", "TestAlways", true},
		{"flaky-failure", "TestNotRunNow", true},
	} {
		f := Finding{}
		f.Kind, f.Package, f.Test = x.kind, "p", x.test
		if got := c.worthReporting(f); got != x.want {
			t.Errorf("%s of %s: %v, want %v", x.kind, x.test, got, x.want)
		}
	}
	var hangs []Finding
	for _, test := range []string{"TestSlow", "TestHung", "TestSlowerThanTheLimit"} {
		f := Finding{}
		f.Kind, f.Package, f.Test = "hang", "p", test
		hangs = append(hangs, f)
	}
	// One note per test whose timed-out runs are not reported as a hang, whether or not a
	// hang finding came back from them; none for the reported hang.
	notes := c.hangsLeftOut(hangs)
	wantNotes := []string{"p.TestSlow did not finish within its time limit (0s) in 4 of 10 runs", "p.TestSlowerThanTheLimit did not finish within its time limit (0s) in 1 of 1 runs", "p.TestNoTraceCameBack did not finish within its time limit (0s) in 1 of 1 runs"}
	if len(notes) != len(wantNotes) {
		t.Fatalf("notes %q, want %d: %q", notes, len(wantNotes), wantNotes)
	}
	for i, w := range wantNotes {
		if !strings.HasPrefix(notes[i], w) {
			t.Errorf("note %d: %q, want it to start %q", i, notes[i], w)
		}
	}
}
