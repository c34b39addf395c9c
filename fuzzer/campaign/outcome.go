package campaign

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer/build"
	"github.com/goweave/goweave/fuzzer/run"
)

// Findings from how a run ended, read from the test's output: a panic (flaky-panic, at the
// panicking goroutine's innermost frame in the module, its callers as related positions),
// a test failure (flaky-failure, at the last line the test logged before it failed), and a
// run stopped at its time limit (hang, at the test goroutine's position in the goroutine
// dump the time limit's SIGQUIT prints, the other goroutines of the module as related
// positions), and a crash of the test's making (crash.go). Whether they are worth a report
// depends on the other runs of the test (see
// worthReporting): a test that fails in every run fails under go test too, and a test
// that times out only now and then may be slow on a loaded machine.

// stackFrame is one frame of a goroutine's traceback.
type stackFrame = raceFrame

// goroutineStack is one goroutine of a traceback in a test's output.
type goroutineStack struct {
	id     uint64
	state  string       // "running", "chan receive", "sleep", ...
	frames []stackFrame // innermost first
}

// raceFailed is how the testing package fails a test in which the race detector reported.
const raceFailed = "race detected during execution of test"

var (
	// goroutine 7 [chan receive]:   goroutine 7 gp=0x... m=nil [chan receive, 2 minutes]:
	goroutineHeader = regexp.MustCompile(`^goroutine (\d+)(?: [^\[]*)? \[([^\],]+)[^\]]*\]:$`)
	frameFile       = regexp.MustCompile(`^\t(.+\.(?:go|s)):(\d+)(?: \+0x[0-9a-f]+)?(?: .*)?$`)
	// "    x_test.go:12: message" as the testing package logs it
	logLine = regexp.MustCompile(`^\s+([^\s:]+\.go):(\d+): (.*)$`)
)

// parseTraceback reads the goroutine tracebacks of output.
func parseTraceback(output string) []goroutineStack {
	var out []goroutineStack
	var cur *goroutineStack
	lines := strings.Split(output, "\n")
	for i, line := range lines {
		if m := goroutineHeader.FindStringSubmatch(line); m != nil {
			id, _ := strconv.ParseUint(m[1], 10, 64)
			out = append(out, goroutineStack{id: id, state: m[2]})
			cur = &out[len(out)-1]
			continue
		}
		if line == "" {
			cur = nil
			continue
		}
		if cur == nil || i == 0 || strings.HasPrefix(lines[i-1], "created by ") {
			continue
		}
		if m := frameFile.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[2])
			fn := lines[i-1]
			if j := strings.LastIndexByte(fn, '('); j > 0 {
				fn = fn[:j]
			}
			cur.frames = append(cur.frames, stackFrame{function: fn, file: m[1], line: n})
		}
	}
	return out
}

// userFrames returns the frames of st in the module, innermost first.
func userFrames(st goroutineStack, module string) []stackFrame {
	var out []stackFrame
	rest := st.frames
	for {
		f, ok := userFrame(rest, module)
		if !ok {
			return out
		}
		out = append(out, f)
		for i := range rest {
			if rest[i] == f {
				rest = rest[i+1:]
				break
			}
		}
	}
}

// outcomeFindings turns how run r of test ended into findings (see above).
func outcomeFindings(bin *build.TestBinary, test string, r *run.Run) []analysis.Finding {
	var f analysis.Finding
	switch r.Status {
	case run.StatusPanic:
		f = panicFinding(bin, test, r)
	case run.StatusFail:
		f = recoveredPanic(bin, test, r, failureFinding(bin, test, r)) // panicsite.go
	case run.StatusTimeout:
		f = hangFinding(bin, test, r)
	case run.StatusCrash:
		f = crashFinding(bin, test, r) // crash.go
	}
	if f.Kind == "" || len(f.Positions) == 0 {
		return nil
	}
	f.Package, f.Test = bin.Package, test
	f.Severity = analysis.SeverityOf(f.Kind, f.Confidence)
	f.Fingerprint = outcomeFingerprint(f, bin.Module)
	return []analysis.Finding{f}
}

// provenStuck reports whether the analysis of a run stopped while it was still making
// progress (run.Run.Progressing) proves goroutines stuck all the same: a deadlock or a leak
// that happened in the run (the GC's leak detection at the time limit, a lock cycle). Only
// then is the run's hang reported: a hang needs evidence that something could not progress.
func provenStuck(fs []analysis.Finding) bool {
	for _, f := range fs {
		if f.Confidence == analysis.Actual && (f.Kind == "deadlock" || strings.HasPrefix(f.Kind, "leak-")) {
			return true
		}
	}
	return false
}

// panicFinding locates the panic of r: the first traceback after the "panic: " line is the
// panicking goroutine's.
func panicFinding(bin *build.TestBinary, test string, r *run.Run) analysis.Finding {
	out := r.Output
	if i := strings.Index(out, "\npanic: "); i >= 0 {
		out = out[i:]
	} else if !strings.HasPrefix(out, "panic: ") {
		return analysis.Finding{}
	}
	stacks := parseTraceback(out)
	if len(stacks) == 0 {
		return analysis.Finding{}
	}
	frames := panicSiteFrames(stacks[0], bin.Module) // panicsite.go
	if len(frames) == 0 {
		return outsidePanic(bin, test, r, stacks[0])
	}
	f := analysis.Finding{Kind: "flaky-panic", Confidence: analysis.Actual,
		Message: fmt.Sprintf("%s panicked at %s:%d: %s", test, filepath.Base(frames[0].file), frames[0].line, firstLine(r.Panic))}
	f.Positions = append(f.Positions, position("panic", frames[0]))
	for _, fr := range frames[1:min(len(frames), 5)] {
		f.Positions = append(f.Positions, position("called from", fr))
	}
	return f
}

// outsidePanic is the flaky-panic of a panic whose goroutine has no frame in the module (a
// dependency's goroutine): at the test's declaration, naming where it panicked. Without it
// such a run was silent.
func outsidePanic(bin *build.TestBinary, test string, r *run.Run, st goroutineStack) analysis.Finding {
	decl, ok := testDecl(bin.Dir, strings.SplitN(test, "/", 2)[0])
	if !ok || len(st.frames) == 0 {
		return analysis.Finding{}
	}
	fr := st.frames[0]
	for _, f := range st.frames {
		if !strings.HasPrefix(f.function, "runtime.") && !strings.HasPrefix(f.function, "panic(") {
			fr = f
			break
		}
	}
	decl.Role = "test"
	return analysis.Finding{Kind: "flaky-panic", Confidence: analysis.Actual, Positions: []analysis.Position{decl},
		Message: fmt.Sprintf("%s panicked outside the module, in %s at %s:%d: %s", test, shortFunc(fr.function), filepath.Base(fr.file), fr.line, firstLine(r.Panic))}
}

// failureFinding locates a test failure: an Example's at the Example (exampleFailure),
// a test's at the last line the test logged before its "--- FAIL" line: t.Fatal's, or the last t.Error's (a t.Log after it would be taken
// instead: the output does not tell them apart). A test failed by the race detector
// (testing's "race detected during execution of test", logged last) gets none: the race's
// own findings (race.go, or unplaced.go when none places it) say where, and the log line
// before it is not the failure. The message is the failing log line's block (logmessage.go).
func failureFinding(bin *build.TestBinary, test string, r *run.Run) analysis.Finding {
	lines := strings.Split(r.Output, "\n")
	end := len(lines)
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "--- FAIL: "+test) {
			end = i
			break
		}
	}
	if strings.HasPrefix(test, "Example") {
		if f := exampleFailure(bin, test, lines[min(end+1, len(lines)):]); f.Kind != "" {
			return f
		}
	}
	failed := end < len(lines)
	foreign := -1 // the last log line from a file not of the package
	for i := end - 1; i >= 0; i-- {
		m := logLine.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		if m[3] == raceFailed {
			return analysis.Finding{}
		}
		file := m[1]
		if !filepath.IsAbs(file) {
			file = filepath.Join(bin.Dir, file)
		}
		if _, err := os.Stat(file); err != nil {
			if foreign < 0 {
				foreign = i
			}
			continue
		}
		if foreign >= 0 && strings.HasPrefix(logLine.FindStringSubmatch(lines[foreign])[3], goleakFound) {
			break // goleak's report after the test's last log line is the failure
		}
		n, _ := strconv.Atoi(m[2])
		return analysis.Finding{Kind: "flaky-failure", Confidence: analysis.Actual,
			Message:   fmt.Sprintf("%s failed: %s", test, logMessage(m[3], lines[i+1:end])),
			Positions: []analysis.Position{position("failure", stackFrame{file: file, line: n})}}
	}
	if foreign >= 0 && failed {
		if f := foreignFailure(bin, test, lines[foreign], lines[foreign+1:end]); f.Kind != "" {
			return f
		}
	}
	if failed {
		return unloggedFailure(bin, test, lines[:end]) // silent.go
	}
	return analysis.Finding{}
}

// foreignFailure is the flaky-failure of a test whose failing log line is in a file not of
// the package (a helper in another package that does not call t.Helper; goleak's leaks.go):
// its message, at the test's declaration. Not at a line its block names: goleak's
// goroutines stand wherever the run left them (survey 9, RxGo: 8 tests' leaks at 6 lines
// made 18 findings).
func foreignFailure(bin *build.TestBinary, test, line string, below []string) analysis.Finding {
	m := logLine.FindStringSubmatch(line)
	at, ok := testDecl(bin.Dir, strings.SplitN(test, "/", 2)[0])
	if !ok {
		return analysis.Finding{}
	}
	return analysis.Finding{Kind: "flaky-failure", Confidence: analysis.Actual,
		Message:   fmt.Sprintf("%s failed: %s", test, logMessage(m[3], below)),
		Positions: []analysis.Position{at}}
}

// hangFinding locates a run stopped at its time limit: the test goroutine (the one running
// the test function) where it waited or ran, and the module's other goroutines where they
// were.
func hangFinding(bin *build.TestBinary, test string, r *run.Run) analysis.Finding {
	stacks := parseTraceback(r.Output)
	testFn := bin.Package + "." + test
	ti := -1
	for i, st := range stacks {
		for _, fr := range st.frames {
			if (fr.function == testFn || fr.function == bin.Package+"_test."+test) && ti < 0 {
				ti = i
			}
		}
	}
	f := analysis.Finding{Kind: "hang", Confidence: analysis.Actual}
	limit := r.Elapsed.Round(time.Second)
	if ti < 0 {
		return f // no traceback of the test: nothing to anchor the report at
	}
	frames := userFrames(stacks[ti], bin.Module)
	if len(frames) == 0 {
		return f
	}
	doing := "waiting (" + stacks[ti].state + ")"
	if s := stacks[ti].state; s == "running" || s == "runnable" || s == "syscall" {
		doing = s
	}
	f.Message = fmt.Sprintf("%s did not finish within its %s time limit: the test goroutine was %s at %s:%d", test, limit, doing, filepath.Base(frames[0].file), frames[0].line)
	f.Positions = append(f.Positions, position("test goroutine ("+stacks[ti].state+")", frames[0]))
	others := 0
	at := map[string]bool{fmt.Sprintf("%s:%d", frames[0].file, frames[0].line): true}
	for i, st := range stacks {
		fs := userFrames(st, bin.Module)
		if i == ti || len(fs) == 0 {
			continue
		}
		others++
		if key := fmt.Sprintf("%s:%d", fs[0].file, fs[0].line); !at[key] && len(f.Positions) < 9 {
			at[key] = true
			f.Positions = append(f.Positions, position(fmt.Sprintf("goroutine %d (%s)", st.id, st.state), fs[0]))
		}
	}
	if others > 0 {
		f.Message += fmt.Sprintf(", with %d other goroutine(s) of the module", others)
	}
	return f
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

const outcomePrefix = "outcome:"

// outcomeFingerprint identifies an outcome finding by its kind and its positions relative
// to the module; hangs by their test alone (a spinning goroutine stops at any line of its
// loop).
func outcomeFingerprint(f analysis.Finding, module string) string {
	parts := []string{f.Kind}
	switch {
	case f.Kind == "hang":
		parts = append(parts, f.Package, f.Test)
	case analysis.FailedInHelper(&f):
		// each calling test's: one finding for all of them would name one test for the
		// failures of six
		parts = append(parts, f.Package, f.Test)
		fallthrough
	default:
		for _, p := range f.Positions {
			file := p.File
			if rel, ok := below(module, file); ok {
				file = filepath.ToSlash(rel)
			}
			parts = append(parts, fmt.Sprintf("%s@%s:%d", p.Role, file, p.Line))
		}
	}
	sum := sha256.Sum256([]byte(strings.Join(parts, "\n")))
	return outcomePrefix + hex.EncodeToString(sum[:8])
}
