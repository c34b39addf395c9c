package campaign

import (
	"os"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer/run"
)

// Race reports no race finding places (their shapes as the race detector prints them; the
// module's lines in w_test.go, a dependency's under the module cache) give a data-race that
// names the report's accesses, at the module's lines nearest to them: never a silent run.
func TestUnplacedRace(t *testing.T) {
	bin, file := outcomeModule(t)
	src := "package w\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {\n" + strings.Repeat("\tt.Log()\n", 30) + "}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	dep := "/root/go/pkg/mod/example.com/dep@v1.0.0/meter.go"
	// The writing side runs only in the dependency's goroutine, which the test started.
	depRace := func(addr, g1, g2 string, writeFirst bool) []string {
		write := []string{"Write at " + addr + " by goroutine " + g1 + ":",
			"  example.com/dep.(*Meter).loop()", "      " + dep + ":15 +0x4b",
			"  example.com/dep.Start.gowrap1()", "      " + dep + ":9 +0xe", ""}
		read := []string{"Read at " + addr + " by goroutine " + g2 + ":",
			"  example.com/dep.(*Meter).Count()", "      " + dep + ":20 +0x33",
			"  example.com/w.TestX()", "      " + file + ":12 +0x2d", ""}
		created := []string{"Goroutine " + g1 + " (running) created at:",
			"  example.com/dep.Start()", "      " + dep + ":9 +0xa4",
			"  example.com/w.TestX()", "      " + file + ":10 +0x1c", ""}
		first, second := write, read
		if !writeFirst {
			first, second = read, write
		}
		second = append([]string{"Previous " + strings.ToLower(second[0][:1]) + second[0][1:]}, second[1:]...)
		return append(append(first, second...), created...)
	}
	rep := depRace("0x00c000018248", "9", "8", true)
	if fs := raceFindings([][]string{rep}, bin.Module, nil); len(fs) != 0 {
		t.Fatalf("raceFindings placed the race: %+v (the backstop's case is one it does not)", fs)
	}
	fs := unplacedRace(bin, "TestX", &run.Run{Status: run.StatusFail, Races: [][]string{rep}}, nil)
	if len(fs) != 1 || fs[0].Kind != "data-race" {
		t.Fatalf("findings %+v, want one data-race", fs)
	}
	f := fs[0]
	if !strings.Contains(f.Message, "read by goroutine 8 in example.com/dep.(*Meter).Count at meter.go:20, unordered with the write by goroutine 9 in example.com/dep.(*Meter).loop at meter.go:15") {
		t.Errorf("message %q does not name the report's accesses", f.Message)
	}
	if len(f.Positions) < 2 || f.Positions[0].Line != 12 || f.Positions[1].Line != 10 || !strings.HasPrefix(f.Positions[1].Role, "goroutine of the write") {
		t.Errorf("positions %+v, want the read's call at line 12, the writer's go statement at line 10", f.Positions)
	}
	// Another run of the same race: other addresses and goroutines, the other order.
	again := unplacedRace(bin, "TestX", &run.Run{Status: run.StatusCrash, Races: [][]string{depRace("0x00c0000a0010", "21", "20", false)}}, nil)
	if len(again) != 1 || again[0].Fingerprint != f.Fingerprint || again[0].Positions[0] != f.Positions[0] {
		t.Errorf("the same race in another run: %+v, want fingerprint %s and first position %+v", again, f.Fingerprint, f.Positions[0])
	}
	// A race finding (or a trace's data-race) of the run says it already.
	if fs := unplacedRace(bin, "TestX", &run.Run{Races: [][]string{rep}}, []Finding{{Finding: f}}); len(fs) != 0 {
		t.Errorf("a run whose race has a finding: %+v", fs)
	}
	// Nor does the finding of how the run ended (a panic the race runtime reported beside).
	panicked := Finding{Finding: analysis.Finding{Kind: "flaky-panic", Fingerprint: outcomePrefix + "x"}}
	if fs := unplacedRace(bin, "TestX", &run.Run{Status: run.StatusPanic, Races: [][]string{rep}}, []Finding{panicked}); len(fs) != 0 {
		t.Errorf("a panicking run: %+v", fs)
	}
	// A report goweave cannot read: its first lines, at the test.
	odd := []string{"Write at 0x00c000018248 by goroutine 9:", "  <unknown>", ""}
	fs = unplacedRace(bin, "TestX", &run.Run{Status: run.StatusFail, Races: [][]string{odd, rep}}, nil)
	if len(fs) != 1 || fs[0].Positions[0].Line != 5 || fs[0].Positions[0].Role != "test" ||
		!strings.Contains(fs[0].Message, "could not read (go test -race fails on it): Write at 0x00c000018248 by goroutine 9:; <unknown> (the first of 2 reports)") {
		t.Errorf("findings %+v, want the unread report's first lines at the test's declaration", fs)
	}
	// Inside runtime functions other than a channel's (a map's), both sides in the module.
	maps := []string{"Write at 0x00c00009e600 by goroutine 9:",
		"  runtime.mapassign_faststr()", "      /usr/local/go/src/internal/runtime/maps/runtime_faststr.go:263 +0x0",
		"  example.com/w.TestX.func1()", "      " + file + ":8 +0x5a", "",
		"Previous read at 0x00c00009e600 by goroutine 8:",
		"  runtime.mapaccess1_faststr()", "      /usr/local/go/src/internal/runtime/maps/runtime_faststr.go:101 +0x0",
		"  example.com/w.TestX()", "      " + file + ":14 +0x164", ""}
	fs = unplacedRace(bin, "TestX", &run.Run{Status: run.StatusFail, Races: [][]string{maps}}, nil)
	if len(fs) != 1 || fs[0].Positions[0].Line != 8 || fs[0].Positions[1].Line != 14 || !strings.Contains(fs[0].Message, "write by goroutine 9 in runtime.mapassign_faststr") {
		t.Errorf("findings %+v, want the map's write at line 8, its read at line 14", fs)
	}
	if fs := unplacedRace(bin, "TestX", &run.Run{Status: run.StatusFail}, nil); len(fs) != 0 {
		t.Errorf("a run without race reports: %+v", fs)
	}
}

// A T used after its test completed races with package testing's own bookkeeping: both
// accesses are inside package testing (the late t.Logf's and tRunner's). The
// t-used-after-test rule reports it, at the same line; the backstop stays silent
// (testdata/examples/tafterend once gave both).
func TestUnplacedRaceInsideTesting(t *testing.T) {
	bin, file := outcomeModule(t)
	src := "package w\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {\n" + strings.Repeat("\tt.Log()\n", 30) + "}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	testingGo := "/usr/local/go/src/testing/testing.go"
	rep := []string{"Read at 0x00c0001a0010 by goroutine 9:",
		"  testing.(*common).logDepth()", "      " + testingGo + ":1045 +0x8b",
		"  testing.(*common).Logf()", "      " + testingGo + ":1120 +0x6e",
		"  example.com/w.TestX.func1()", "      " + file + ":12 +0x44", "",
		"Previous write at 0x00c0001a0010 by goroutine 8:",
		"  testing.tRunner.func1()", "      " + testingGo + ":1790 +0x3c4",
		"  testing.tRunner()", "      " + testingGo + ":1800 +0x1e4", "",
		"Goroutine 9 (running) created at:",
		"  example.com/w.TestX()", "      " + file + ":10 +0x1c", ""}
	if fs := unplacedRace(bin, "TestX", &run.Run{Status: run.StatusFail, Races: [][]string{rep}}, nil); len(fs) != 0 {
		t.Errorf("findings %+v, want none: the race is testing's own, reported as t-used-after-test", fs)
	}
}
