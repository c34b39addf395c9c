package campaign

import (
	"os"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer/run"
)

// A run that ended as a crash of the test's making (a fatal error, an exit before the test
// ended, a TestMain failing the process after it passed) is a finding, never silent; one
// the test did not make (a signal from outside, races: their findings) is not.
func TestCrashFindings(t *testing.T) {
	bin, file := outcomeModule(t)
	src := "package w\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {\n" + strings.Repeat("\tt.Log()\n", 20) + "}\n\nfunc TestMain(m *testing.M) {}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		r    run.Run
		kind string
		msg  string
		line int
	}{
		{"map written by two goroutines", run.Run{ExitCode: 2, Fatal: "concurrent map writes", Output: "=== RUN   TestX\nfatal error: concurrent map writes\n\n" +
			"goroutine 20 [running]:\ninternal/runtime/maps.fatal({0x589d0a?, 0x0?})\n\t/usr/local/go/src/runtime/panic.go:1181 +0x18\n" +
			"example.com/w.fill.func1()\n\t" + file + ":8 +0x3e\ncreated by example.com/w.fill in goroutine 19\n\t" + file + ":6 +0x86\n"},
			"data-race", "TestX crashed at w_test.go:8: fatal error: concurrent map writes", 8},
		{"unlock of an unlocked mutex", run.Run{ExitCode: 2, Fatal: "sync: unlock of unlocked mutex", Output: "=== RUN   TestX\nfatal error: sync: unlock of unlocked mutex\n\n" +
			"goroutine 7 [running]:\nsync.fatal({0x5a1b2c?, 0x0?})\n\t/usr/local/go/src/runtime/panic.go:1169 +0x18\n" +
			"sync.(*Mutex).Unlock(...)\n\t/usr/local/go/src/sync/mutex.go:228\nexample.com/w.TestX()\n\t" + file + ":11 +0x3e\n"},
			"flaky-panic", "TestX crashed at w_test.go:11: fatal error: sync: unlock of unlocked mutex", 11},
		{"log.Fatal in the test", run.Run{ExitCode: 1, Output: "=== RUN   TestX\n2026/11/28 00:41:07 dial tcp 127.0.0.1:7001: connection refused\n"},
			"flaky-failure", `TestX exited with status 1 before it ended (os.Exit or log.Fatal); its last output: "2026/11/28 00:41:07 dial tcp 127.0.0.1:7001: connection refused"`, 5},
		{"log.Fatal after a subtest passed", run.Run{ExitCode: 1, Output: "=== RUN   TestX\n=== RUN   TestX/a\n--- PASS: TestX/a (0.00s)\n    --- PASS: TestX/a (0.00s)\n2026/11/28 00:41:07 no leader\n"},
			"flaky-failure", `TestX exited with status 1 before it ended (os.Exit or log.Fatal); its last output: "2026/11/28 00:41:07 no leader"`, 5},
		{"goleak in TestMain", run.Run{ExitCode: 1, Output: "=== RUN   TestX\n--- PASS: TestX (0.00s)\nPASS\ngoleak: Errors on successful test run: found unexpected goroutines:\n" +
			"[Goroutine 7 in state chan receive, with example.com/w.worker on top of the stack:\ngoroutine 7 [chan receive]:\nexample.com/w.worker()\n\t" + file + ":14 +0x25\n]\n"},
			"flaky-failure", "TestX passed, then its test process exited with status 1 (TestMain): goleak found 1 unexpected goroutine(s): w.worker (chan receive)", 14},
	}
	for _, c := range cases {
		c.r.Status = run.StatusCrash
		fs := outcomeFindings(bin, "TestX", &c.r)
		if len(fs) != 1 || fs[0].Kind != c.kind || !strings.HasPrefix(fs[0].Message, c.msg) || fs[0].Positions[0].Line != c.line {
			t.Errorf("%s: findings %+v\nwant %s %q at line %d", c.name, fs, c.kind, c.msg, c.line)
		}
	}
	for name, r := range map[string]run.Run{
		"killed by a signal":                         {ExitCode: -1, Signal: "killed", Output: "=== RUN   TestX\n"},
		"failed by the race detector after the test": {ExitCode: 66, Races: [][]string{{"Write at 0x1 by goroutine 7:"}}, Output: "=== RUN   TestX\n--- PASS: TestX (0.00s)\nPASS\nFound 1 data race(s)\n"},
		"test not found":                             {ExitCode: 0, Output: "testing: warning: no tests to run\nPASS\n"},
		"ended by a signal its runtime caught": {ExitCode: 2, Output: "=== RUN   TestX\nSIGQUIT: quit\nPC=0x47e1c1 m=0 sigcode=0\n\ngoroutine 0 gp=0x6c2e40 m=0 mp=0x6c38a0 [idle]:\n" +
			"runtime.gcStart(...)\n\t/usr/local/go/src/runtime/mgc.go:1695 +0x3d\nrax    0x0\ngs     0x0\n"},
	} {
		r.Status = run.StatusCrash
		if fs := outcomeFindings(bin, "TestX", &r); len(fs) != 0 {
			t.Errorf("%s: %+v, want no finding", name, fs)
		}
	}
	// A dump's runtime frames are not the test's failure: the exit is at the test.
	dump := "=== RUN   TestX\ngoroutine 7 [running]:\nruntime.gcStart()\n\t/usr/local/go/src/runtime/mgc.go:1695 +0x3d\nexit now\n"
	if fs := outcomeFindings(bin, "TestX", &run.Run{Status: run.StatusCrash, ExitCode: 3, Output: dump}); len(fs) != 1 || fs[0].Positions[0].File != file {
		t.Errorf("an exit after a dump of runtime frames: %+v, want a finding at the test", fs)
	}
	// Crashing in every run is a failing test, as failing is (broken.go).
	ar := &AnalyzedRun{Run: &run.Run{Status: run.StatusCrash, ExitCode: 2}, Findings: []Finding{{Finding: analysis.Finding{Kind: "flaky-panic"}}}}
	if !failingRun(ar) {
		t.Error("a run that crashed at a fatal error is not a failing run")
	}
	if failingRun(&AnalyzedRun{Run: &run.Run{Status: run.StatusCrash, Signal: "killed"}}) {
		t.Error("a run killed from outside is a failing run")
	}
}
