package campaign

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer/build"
	"github.com/goweave/goweave/fuzzer/run"
)

// A run the race detector failed gets no flaky-failure (failureFinding): its race findings
// say where. When none came from its reports (a report raceFindings cannot read, a race
// whose one side runs only in a dependency's goroutine, a race inside runtime functions
// other than a channel's send or close, such as a map's), the failed run would be silent:
// "0 bugs", exit status 0, for a test that go test -race fails. unplacedRace is the
// backstop: a data-race naming the first report's accesses as the race detector printed
// them, at the module's lines nearest to them.

// unplacedRace is the finding of run r of test when it had race reports and no finding of
// a data race, or of a channel race, came from them or from its trace (have), nor one of
// how the run ended (a panic's: the race runtime reports a frameless race while a
// WaitGroup misuse panics, testdata/anchor's wgpool); else none.
func unplacedRace(bin *build.TestBinary, test string, r *run.Run, have []Finding) []analysis.Finding {
	if len(r.Races) == 0 || slices.ContainsFunc(have, func(f Finding) bool {
		return isRaceFinding(&f) || f.Kind == "data-race" || strings.HasPrefix(f.Fingerprint, outcomePrefix)
	}) {
		return nil
	}
	lines := r.Races[0]
	f := analysis.Finding{Kind: "data-race", Confidence: analysis.Actual, Severity: analysis.SeverityError}
	cur, prev, ok := parseRace(lines)
	if ok && inTesting(cur) && inTesting(prev) {
		// Package testing's own state, raced by a T used after its test completed (a t.Logf
		// of a goroutine the test did not wait for): the t-used-after-test rule predicts it
		// from every run of the test and replays it; a data-race beside it says the same
		// again, at the same line (testdata/examples/tafterend).
		return nil
	}
	var what []string
	if ok {
		// The same anchors in every run, whichever access the race detector saw second:
		// an access made from the module's code first, then a write.
		sides := []raceAccess{cur, prev}
		slices.SortStableFunc(sides, func(a, b raceAccess) int {
			_, da := userFrame(a.frames, bin.Module)
			_, db := userFrame(b.frames, bin.Module)
			wa, wb := strings.Contains(a.op, "write"), strings.Contains(b.op, "write")
			switch {
			case da != db && da, da == db && wa && !wb:
				return -1
			case da != db, wa != wb:
				return 1
			}
			return 0
		})
		for _, side := range sides {
			what = append(what, accessText(side))
			if p, ok := sideAnchor(side, bin.Module); ok {
				f.Positions = append(f.Positions, p)
			}
		}
		addTestCalls(&f, bin.Module, cur, prev)
	} else {
		what = firstLines(lines, 2)
	}
	if len(f.Positions) == 0 {
		decl, ok := testDecl(bin.Dir, strings.SplitN(test, "/", 2)[0])
		if !ok {
			return nil // no line of the module to show it at; the run's status still counts
		}
		decl.Role = "test"
		f.Positions = []analysis.Position{decl}
	}
	if ok {
		f.Message = fmt.Sprintf("data race the race detector reported outside the module's own accesses (go test -race fails on it): %s, unordered with the %s", what[0], what[1])
	} else {
		f.Message = fmt.Sprintf("race detector report goweave could not read (go test -race fails on it): %s", strings.Join(what, "; "))
	}
	if n := len(r.Races); n > 1 {
		f.Message += fmt.Sprintf(" (the first of %d reports)", n)
	}
	f.Fingerprint = unplacedFingerprint(cur, prev, ok, what)
	return []analysis.Finding{f}
}

// accessText is one side of a race as the race detector names it, with its innermost
// frame: "write by goroutine 9 in example.com/dep.(*Meter).loop at dep.go:15".
func accessText(a raceAccess) string {
	who := "the main goroutine"
	if a.goroutine != 0 {
		who = fmt.Sprintf("goroutine %d", a.goroutine)
	}
	fr := a.frames[0]
	return fmt.Sprintf("%s by %s in %s at %s:%d", a.op, who, strings.TrimSuffix(fr.function, "()"), filepath.Base(fr.file), fr.line)
}

// sideAnchor is where the module meets one side of a race: its innermost frame in the
// module (the call into the dependency or the runtime), else where the module started its
// goroutine.
func sideAnchor(a raceAccess, module string) (analysis.Position, bool) {
	if fr, ok := userFrame(a.frames, module); ok {
		return position(a.op+" (in "+shortFunc(a.frames[0].function)+")", fr), true
	}
	if fr, ok := userFrame(a.created, module); ok {
		return position("goroutine of the "+a.op+" (in "+shortFunc(a.frames[0].function)+")", fr), true
	}
	return analysis.Position{}, false
}

// shortFunc is a function's name without its package path and argument list.
func shortFunc(fn string) string {
	fn = strings.TrimSuffix(fn, "()")
	if i := strings.LastIndexByte(fn, '/'); i >= 0 {
		fn = fn[i+1:]
	}
	return fn
}

// firstLines are the first n non-empty lines of a report, trimmed.
func firstLines(lines []string, n int) []string {
	var out []string
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" && len(out) < n {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		out = []string{"(an empty report)"}
	}
	return out
}

// runSpecific are the parts of a report's line that differ between runs of one race.
var runSpecific = regexp.MustCompile(`0x[0-9a-f]+|goroutine \d+`)

// unplacedFingerprint identifies an unplaced race by the functions of its two accesses in
// either order (addresses and goroutine numbers change from run to run), or by the lines of
// a report that could not be read.
func unplacedFingerprint(cur, prev raceAccess, parsed bool, what []string) string {
	parts := slices.Clone(what)
	for i := range parts {
		parts[i] = runSpecific.ReplaceAllString(parts[i], "")
	}
	if parsed {
		parts = []string{cur.op + "@" + cur.frames[0].function, prev.op + "@" + prev.frames[0].function}
		slices.Sort(parts)
	}
	sum := sha256.Sum256([]byte(strings.Join(parts, "\n")))
	return racePrefix + "unplaced:" + hex.EncodeToString(sum[:8])
}

// inTesting reports whether access a was made inside package testing (its innermost frame).
func inTesting(a raceAccess) bool {
	return len(a.frames) > 0 && strings.HasPrefix(a.frames[0].function, "testing.")
}
