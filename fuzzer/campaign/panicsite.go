package campaign

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer/build"
	"github.com/goweave/goweave/fuzzer/run"
)

// Where a panic happened, when the goroutine that printed its stack is not where it started
// (issue 21: existing tests that reach a bug which goweave then reported "elsewhere"):
//   - a deferred function that recovered the panic and panicked again (a pool's worker
//     wrapper, a test's recover-and-repanic) is the innermost frame of the stack; the
//     panic's own site is below the runtime's "panic(...)" frame;
//   - a test that recovers the panic and fails with its stack (t.Fatalf("%v\n%s", r,
//     debug.Stack()), testify's NotPanics "Panic stack:") is a failure at the test's log
//     line, while the stack in its message names the module's line that panicked.
// Both are anchored at the panic's site, the test's lines kept as related positions.

// panicSiteFrames returns st's frames in the module from the panic's site outwards,
// innermost first: those below the outermost runtime "panic(...)" frame when there is one
// with frames of the module below it, else all of st's frames in the module.
func panicSiteFrames(st goroutineStack, module string) []stackFrame {
	if i := outermostPanicFrame(st); i >= 0 {
		if fs := userFrames(goroutineStack{frames: st.frames[i+1:]}, module); len(fs) > 0 {
			return fs
		}
	}
	return userFrames(st, module)
}

// outermostPanicFrame is the index in st.frames of the last (outermost) frame of the
// runtime's panic function, -1 without one. Nested panics each add one; the outermost was
// the first to be raised.
func outermostPanicFrame(st goroutineStack) int {
	at := -1
	for i, fr := range st.frames {
		if fr.function == "panic" && strings.HasSuffix(filepath.ToSlash(fr.file), "runtime/panic.go") {
			at = i
		}
	}
	return at
}

// frameInMessage is a frame's file line in a stack printed inside a log message, its
// indentation (testing's, testify's tab-separated columns) trimmed.
var frameInMessage = regexp.MustCompile(`^(?:[A-Za-z]:)?/\S+\.(?:go|s):\d+(?: \+0x[0-9a-f]+)?(?: .*)?$`)

// goroutineInMessage finds a goroutine header inside a message line ("Panic stack:\tgoroutine
// 7 [running]:").
var goroutineInMessage = regexp.MustCompile(`goroutine \d+(?: [^\[]*)? \[[^\]]+\]:$`)

// recoveredPanic anchors f, the finding of a failed run r (failureFinding), at the site of a
// panic that the test recovered and printed with its stack in the failure's message. f is
// returned unchanged when the message holds no stack of a panic (no runtime "panic(...)"
// frame: a stack printed for another reason says nothing of a panic) or none of its frames
// below the panic is in the module.
func recoveredPanic(bin *build.TestBinary, test string, r *run.Run, f analysis.Finding) analysis.Finding {
	if f.Kind != "flaky-failure" || len(f.Positions) == 0 || f.Positions[0].Role != "failure" {
		return f
	}
	block := failureBlock(r.Output, test, f.Positions[0])
	if len(block) == 0 {
		return f
	}
	var norm []string
	for _, l := range block {
		t := strings.TrimLeft(l, " \t")
		if loc := goroutineInMessage.FindStringIndex(t); loc != nil {
			t = t[loc[0]:]
		} else if frameInMessage.MatchString(t) {
			t = "\t" + t
		}
		norm = append(norm, t)
	}
	for _, st := range parseTraceback(strings.Join(norm, "\n")) {
		i := outermostPanicFrame(st)
		if i < 0 {
			continue
		}
		frames := userFrames(goroutineStack{frames: st.frames[i+1:]}, bin.Module)
		if len(frames) == 0 {
			continue
		}
		site := frames[0]
		failure := f.Positions[0]
		g := analysis.Finding{Kind: "flaky-panic", Confidence: f.Confidence,
			Message: fmt.Sprintf("%s panicked at %s:%d, and the test recovered the panic and failed: %s",
				test, filepath.Base(site.file), site.line, strings.TrimPrefix(f.Message, test+" failed: "))}
		g.Positions = append(g.Positions, position("panic (recovered by the test)", site))
		for _, fr := range frames[1:min(len(frames), 5)] {
			g.Positions = append(g.Positions, position("called from", fr))
		}
		failure.Role = "the test's failure"
		g.Positions = append(g.Positions, failure)
		return g
	}
	return f
}

// failureBlock returns the lines of output that continue the test's log line at p (the
// failure's), up to the test's "--- FAIL" line or the next log line of the test.
func failureBlock(output, test string, p analysis.Position) []string {
	lines := strings.Split(output, "\n")
	end := len(lines)
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "--- FAIL: "+test) {
			end = i
			break
		}
	}
	for i := end - 1; i >= 0; i-- {
		m := logLine.FindStringSubmatch(lines[i])
		if m == nil || filepath.Base(m[1]) != filepath.Base(p.File) || m[2] != strconv.Itoa(p.Line) {
			continue
		}
		// the message is m[3] and the lines after it, indented deeper than the log line
		indent := len(lines[i]) - len(strings.TrimLeft(lines[i], " "))
		out := []string{m[3]}
		for _, l := range lines[i+1 : end] {
			if l != "" && len(l)-len(strings.TrimLeft(l, " ")) <= indent && logLine.MatchString(l) {
				break
			}
			out = append(out, l)
		}
		return out
	}
	return nil
}
