package campaign

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/goweave/goweave/analysis"
)

// Findings from the race detector's reports in a test's output (builds with -race). The
// trace cannot show plain memory accesses; the race detector sees them.

// raceAccess is one side of a race report: "Write at 0x... by goroutine 8:" and its stack.
type raceAccess struct {
	op        string // "read", "write", "atomic read", ...
	goroutine int
	frames    []raceFrame
}

type raceFrame struct {
	function, file string
	line           int
}

var (
	raceHeader = regexp.MustCompile(`^(?:(Previous) )?((?i:atomic )?(?i:read|write)) at 0x[0-9a-f]+ by (?:goroutine (\d+)|main goroutine)`)
	raceFile   = regexp.MustCompile(`^\s+(.+\.(?:go|s)):(\d+)(?: \+0x[0-9a-f]+)?$`)
)

// parseRace reads one report (the lines between "WARNING: DATA RACE" and the closing
// "=================="): the current access and the previous one.
func parseRace(lines []string) (cur, prev raceAccess, ok bool) {
	var side *raceAccess
	for i, line := range lines {
		if m := raceHeader.FindStringSubmatch(line); m != nil {
			side = &cur
			if m[1] != "" {
				side = &prev
			}
			side.op = strings.ToLower(m[2])
			side.goroutine, _ = strconv.Atoi(m[3])
			continue
		}
		if line == "" || (!strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "\t")) {
			side = nil // "Goroutine N (running) created at:" and other sections
			continue
		}
		if side == nil || i == 0 {
			continue
		}
		if m := raceFile.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[2])
			side.frames = append(side.frames, raceFrame{function: strings.TrimSpace(lines[i-1]), file: m[1], line: n})
		}
	}
	return cur, prev, cur.op != "" && prev.op != "" && len(cur.frames) > 0 && len(prev.frames) > 0
}

// userFrame returns the innermost frame in the module: where the user's code made the
// access. Without a module root, the innermost frame outside the runtime and testing.
func userFrame(frames []raceFrame, module string) (raceFrame, bool) {
	root := filepath.Clean(module) + string(filepath.Separator)
	for _, f := range frames {
		if !filepath.IsAbs(f.file) || filepath.Base(f.file) == "_testmain.go" {
			continue
		}
		if module != "" && strings.HasPrefix(f.file, root) {
			return f, true
		}
		if module == "" && !strings.HasPrefix(f.function, "runtime.") && !strings.HasPrefix(f.function, "testing.") {
			return f, true
		}
	}
	return raceFrame{}, false
}

// raceFindings turns race reports into findings. Races inside channel operations (the race
// detector models a close as a write and a send as a read of the channel) become the channel
// kind, send-on-closed or close-of-closed; other runtime-internal races are left out.
func raceFindings(reports [][]string, module string) []analysis.Finding {
	var out []analysis.Finding
	for _, lines := range reports {
		cur, prev, ok := parseRace(lines)
		if !ok {
			continue
		}
		cf, ok1 := userFrame(cur.frames, module)
		pf, ok2 := userFrame(prev.frames, module)
		if !ok1 || !ok2 {
			continue
		}
		f := analysis.Finding{Confidence: analysis.Actual, Severity: analysis.SeverityError}
		cTop, pTop := cur.frames[0].function, prev.frames[0].function
		switch {
		case isRuntime(cTop) || isRuntime(pTop):
			send, close, kind := chanRace(cTop, cf, pTop, pf)
			if kind == "" {
				continue
			}
			f.Kind = kind
			// The operations were unordered, but the panic did not (necessarily) happen.
			f.Confidence = analysis.Predicted
			if kind == "send-on-closed" {
				f.Message = fmt.Sprintf("send is unordered with the close at %s:%d of its channel (race detector): it may panic", filepath.Base(close.file), close.line)
				f.Positions = []analysis.Position{position("send", send), position("close", close)}
			} else {
				f.Message = fmt.Sprintf("close is unordered with another close at %s:%d of the same channel (race detector): one of them panics", filepath.Base(close.file), close.line)
				f.Positions = []analysis.Position{position("close", send), position("other close", close)}
			}
		default:
			// The write is the unsynchronized access to fix when only one side writes.
			first, firstOp, second, secondOp := cf, cur.op, pf, prev.op
			if !strings.Contains(firstOp, "write") && strings.Contains(secondOp, "write") {
				first, firstOp, second, secondOp = second, secondOp, first, firstOp
			}
			f.Kind = "data-race"
			f.Message = fmt.Sprintf("%s races with a %s at %s:%d (race detector)", firstOp, secondOp, filepath.Base(second.file), second.line)
			f.Positions = []analysis.Position{position(firstOp, first), position("conflicting "+secondOp, second)}
		}
		f.Fingerprint = raceFingerprint(f)
		out = append(out, f)
	}
	return out
}

// isRaceFinding reports whether f came from a race report rather than a trace.
func isRaceFinding(f *Finding) bool { return strings.HasPrefix(f.Fingerprint, racePrefix) }

const racePrefix = "race:"

func isRuntime(function string) bool { return strings.HasPrefix(function, "runtime.") }

// chanRace classifies a race between channel operations: a send (chansend) against a close
// is send-on-closed, two closes are close-of-closed.
func chanRace(cTop string, cf raceFrame, pTop string, pf raceFrame) (a, b raceFrame, kind string) {
	op := func(fn string) string {
		switch {
		case strings.HasPrefix(fn, "runtime.chansend"):
			return "send"
		case strings.HasPrefix(fn, "runtime.closechan"):
			return "close"
		}
		return ""
	}
	switch co, po := op(cTop), op(pTop); {
	case co == "send" && po == "close":
		return cf, pf, "send-on-closed"
	case co == "close" && po == "send":
		return pf, cf, "send-on-closed"
	case co == "close" && po == "close":
		return cf, pf, "close-of-closed"
	}
	return raceFrame{}, raceFrame{}, ""
}

func position(role string, f raceFrame) analysis.Position {
	return analysis.Position{Role: role, File: f.file, Line: f.line, Column: analysis.LineColumn(f.file, f.line)}
}

// raceFingerprint identifies a race by its kind and its two lines, in either order: the
// race detector reports whichever access came second as the current one.
func raceFingerprint(f analysis.Finding) string {
	a := fmt.Sprintf("%s:%d", f.Positions[0].File, f.Positions[0].Line)
	b := fmt.Sprintf("%s:%d", f.Positions[1].File, f.Positions[1].Line)
	if f.Kind == "data-race" && b < a {
		a, b = b, a
	}
	return racePrefix + f.Kind + ":" + a + ":" + b
}
