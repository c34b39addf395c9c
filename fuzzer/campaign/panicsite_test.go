package campaign

import (
	"fmt"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer/build"
	"github.com/goweave/goweave/fuzzer/run"
)

// A failure whose message holds the stack of a panic the test recovered (here testify's
// NotPanics layout: tab-separated columns, the header after "Panic stack:") is anchored at
// the module's frame below the runtime's panic frame, not at the test's log line nor at
// testify's or the test's frames above it; a stack without a panic frame changes nothing.
func TestRecoveredPanicAnchor(t *testing.T) {
	bin := &build.TestBinary{Package: "example.com/m", Dir: "/m", Module: "/m"}
	failure := analysis.Finding{Kind: "flaky-failure", Confidence: analysis.Actual, Message: "TestX failed: ",
		Positions: []analysis.Position{{Role: "failure", File: "/m/d_test.go", Line: 12}}}
	const col = "        \t            \t"
	stack := func(withPanic bool) string {
		lines := []string{
			"=== RUN   TestX",
			"    d_test.go:9: setting up",
			"    d_test.go:12: ",
			"        \tError Trace:\t/m/d_test.go:12",
			"        \tError:      \tfunc (assert.PanicTestFunc)(0x5a1f20) should not panic",
			col + "\tPanic value:\tsend on closed channel",
			col + "\tPanic stack:\tgoroutine 7 [running]:",
			col + "runtime/debug.Stack()",
			col + "\t/usr/local/go/src/runtime/debug/stack.go:26 +0x5e",
			col + "github.com/stretchr/testify/assert.didPanic.func1()",
			col + "\t/root/go/pkg/mod/github.com/stretchr/testify@v1.9.0/assert/assertions.go:1176 +0x6b",
			col + "example.com/m.TestX.func2()",
			col + "\t/m/d_test.go:30 +0x1b",
		}
		if withPanic {
			lines = append(lines, col+"panic({0x5f0de0?, 0x6a2f80?})", col+"\t/usr/local/go/src/runtime/panic.go:785 +0x132")
		}
		lines = append(lines,
			col+"example.com/m.(*D).Write(...)",
			col+"\t/m/d.go:53",
			col+"example.com/m.TestX.func1()",
			col+"\t/m/d_test.go:11 +0x3c",
			col+"github.com/stretchr/testify/assert.didPanic(0xc000012345)",
			col+"\t/root/go/pkg/mod/github.com/stretchr/testify@v1.9.0/assert/assertions.go:1178 +0x93",
			"        \tTest:       \tTestX",
			"--- FAIL: TestX (0.00s)",
			"FAIL")
		return strings.Join(lines, "\n")
	}
	got := recoveredPanic(bin, "TestX", &run.Run{Status: run.StatusFail, Output: stack(true)}, failure)
	var ps []string
	for _, p := range got.Positions {
		ps = append(ps, fmt.Sprintf("%s@%s:%d", p.Role, p.File, p.Line))
	}
	want := "panic (recovered by the test)@/m/d.go:53 called from@/m/d_test.go:11 the test's failure@/m/d_test.go:12"
	if got.Kind != "flaky-panic" || strings.Join(ps, " ") != want || !strings.Contains(got.Message, "panicked at d.go:53") {
		t.Errorf("got %s %q at %q, want flaky-panic at %s", got.Kind, got.Message, ps, want)
	}
	if got := recoveredPanic(bin, "TestX", &run.Run{Status: run.StatusFail, Output: stack(false)}, failure); got.Kind != "flaky-failure" || len(got.Positions) != 1 {
		t.Errorf("a stack without a panic frame: got %s at %+v, want the failure unchanged", got.Kind, got.Positions)
	}
}

// A panic recovered and raised again by a deferred function (here the module's own, below
// testing's recover-and-repanic) is anchored at the first panic's site.
func TestPanicSiteBelowRepanic(t *testing.T) {
	out := strings.Join([]string{
		"goroutine 7 [running]:",
		"testing.tRunner.func1.2({0x5b7a60, 0xc000014250})",
		"\t/usr/local/go/src/testing/testing.go:1872 +0x237",
		"testing.tRunner.func1()",
		"\t/usr/local/go/src/testing/testing.go:1875 +0x35b",
		"panic({0x5b7a60?, 0xc000014250?})",
		"\t/usr/local/go/src/runtime/panic.go:783 +0x132",
		"example.com/m.Do.func1()",
		"\t/m/pool.go:40 +0x8e",
		"panic({0x5a88c0?, 0x62d3f0?})",
		"\t/usr/local/go/src/runtime/panic.go:783 +0x132",
		"example.com/m.(*Table).Put(...)",
		"\t/m/pool.go:33",
		"example.com/m.TestRepanic.func1()",
		"\t/m/pool_test.go:31 +0x45",
		"example.com/m.Do({0x5d1a2b, 0x3}, 0xc000051f50)",
		"\t/m/pool.go:43 +0x4f",
	}, "\n")
	st := parseTraceback(out)
	if len(st) != 1 {
		t.Fatalf("%d stacks, want 1", len(st))
	}
	fs := panicSiteFrames(st[0], "/m")
	if len(fs) != 3 || fs[0].file != "/m/pool.go" || fs[0].line != 33 {
		t.Errorf("frames %+v, want pool.go:33 (Put) first, then the test's closure and Do", fs)
	}
	// without a module frame below the panic (the test's own panic), every module frame
	noPanicBelow := goroutineStack{frames: []stackFrame{{function: "example.com/m.TestY", file: "/m/y_test.go", line: 5}}}
	if fs := panicSiteFrames(noPanicBelow, "/m"); len(fs) != 1 || fs[0].line != 5 {
		t.Errorf("frames %+v, want y_test.go:5", fs)
	}
}
