package campaign

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer/build"
	"github.com/goweave/goweave/fuzzer/run"
)

// A test process can end with neither a test failure nor a panic: a fatal error of the
// runtime ("concurrent map writes", which maps detect without the race detector; "sync:
// unlock of unlocked mutex"), an os.Exit or log.Fatal in the test, a TestMain that fails
// the process after the tests passed (goleak.VerifyTestMain). Such a run was a crash that
// no finding named: a campaign of a test throwing "concurrent map writes" in every run
// reported "0 bugs", exit status 0. crashFinding names it. Runs the race detector failed
// are its findings' (race.go, unplaced.go); a process killed by a signal, or whose test was
// not found, is not the test's doing.

// crashFinding is the finding of run r of test, which ended as a crash.
func crashFinding(bin *build.TestBinary, test string, r *run.Run) analysis.Finding {
	if len(r.Races) > 0 || r.Signal != "" || r.ExitCode <= 0 {
		return analysis.Finding{}
	}
	if r.Fatal != "" {
		return fatalFinding(bin, test, r)
	}
	lines := strings.Split(r.Output, "\n")
	verdict := -1
	for i, l := range lines {
		// the test's own verdict, not a subtest's
		if strings.HasPrefix(l, "--- PASS: "+test+" (") || strings.HasPrefix(l, "--- SKIP: "+test+" (") {
			verdict = i
			break
		}
	}
	if strings.Contains(r.Output, "testing: warning: no tests to run") || signalLine.MatchString(r.Output) {
		// not found; or ended by a signal its runtime caught ("SIGQUIT: quit", then
		// every goroutine and the registers, exit status 2): sent from outside the test
		return analysis.Finding{}
	}
	if verdict < 0 {
		f := unloggedFailure(bin, test, lines)
		if f.Kind != "" {
			f.Message = strings.Replace(f.Message, test+" failed without a message from t.Error or t.Fatal",
				fmt.Sprintf("%s exited with status %d before it ended (os.Exit or log.Fatal)", test, r.ExitCode), 1)
		}
		return f
	}
	// After the test passed: TestMain's verdict on the process.
	after := lines[verdict+1:]
	f := unloggedFailure(bin, "TestMain", after)
	if f.Kind == "" {
		f = unloggedFailure(bin, test, after)
	}
	if f.Kind != "" {
		_, what, _ := strings.Cut(f.Message, " failed without a message from t.Error or t.Fatal")
		for _, l := range after {
			if strings.Contains(l, goleakFound) {
				what = ": " + goleakMessage(after) // goleak.VerifyTestMain
				break
			}
		}
		f.Message = fmt.Sprintf("%s passed, then its test process exited with status %d (TestMain)%s", test, r.ExitCode, what)
	}
	return f
}

// fatalFinding is the finding of a fatal error: at the throwing goroutine's innermost frame
// in the module (the runtime prints that goroutine first), else at the test. A map used by
// two goroutines at once is a data race the runtime caught: the other side is not in its
// report.
func fatalFinding(bin *build.TestBinary, test string, r *run.Run) analysis.Finding {
	out := r.Output
	if i := strings.Index(out, "fatal error: "); i >= 0 {
		out = out[i:]
	}
	var frames []stackFrame
	if stacks := parseTraceback(out); len(stacks) > 0 {
		frames = userFrames(stacks[0], bin.Module)
	}
	f := analysis.Finding{Kind: "flaky-panic", Confidence: analysis.Actual}
	if strings.HasPrefix(r.Fatal, "concurrent map ") {
		f.Kind = "data-race"
	}
	if len(frames) == 0 {
		decl, ok := testDecl(bin.Dir, strings.SplitN(test, "/", 2)[0])
		if !ok {
			return analysis.Finding{}
		}
		f.Positions = []analysis.Position{decl}
		f.Message = fmt.Sprintf("%s crashed: fatal error: %s", test, r.Fatal)
		return f
	}
	role := "fatal error"
	if f.Kind == "data-race" {
		role = "map access"
	}
	f.Message = fmt.Sprintf("%s crashed at %s:%d: fatal error: %s", test, filepath.Base(frames[0].file), frames[0].line, r.Fatal)
	if f.Kind == "data-race" {
		f.Message += " (the runtime's map check, without the race detector's report: the other goroutine's access is not named)"
	}
	f.Positions = append(f.Positions, position(role, frames[0]))
	for _, fr := range frames[1:min(len(frames), 5)] {
		f.Positions = append(f.Positions, position("called from", fr))
	}
	return f
}
