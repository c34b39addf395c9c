package campaign

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace"
)

// Findings from the race detector's reports in a test's output (builds with -race). The
// trace cannot show plain memory accesses; the race detector sees them.

// raceAccess is one side of a race report: "Write at 0x... by goroutine 8:" and its stack.
type raceAccess struct {
	op        string // "read", "write", "atomic read", ...
	goroutine int
	addr      uint64 // the word accessed
	frames    []raceFrame
	created   []raceFrame // the "Goroutine N ... created at:" stack of its goroutine
}

type raceFrame struct {
	function, file string
	line           int
}

var (
	raceHeader  = regexp.MustCompile(`^(?:(Previous) )?((?i:atomic )?(?i:read|write)) at 0x([0-9a-f]+) by (?:goroutine (\d+)|main goroutine)`)
	raceCreated = regexp.MustCompile(`^Goroutine (\d+) \(.*\) created at:$`)
	raceFile    = regexp.MustCompile(`^\s+(.+\.(?:go|s)):(\d+)(?: \+0x[0-9a-f]+)?$`)
)

// parseRace reads one report (the lines between "WARNING: DATA RACE" and the closing
// "=================="): the current access and the previous one, each with the stack that
// created its goroutine.
func parseRace(lines []string) (cur, prev raceAccess, ok bool) {
	var frames *[]raceFrame
	created := map[int]*[]raceFrame{}
	for i, line := range lines {
		if m := raceHeader.FindStringSubmatch(line); m != nil {
			side := &cur
			if m[1] != "" {
				side = &prev
			}
			side.op = strings.ToLower(m[2])
			side.addr, _ = strconv.ParseUint(m[3], 16, 64)
			side.goroutine, _ = strconv.Atoi(m[4])
			frames = &side.frames
			continue
		}
		if m := raceCreated.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[1])
			frames = new([]raceFrame)
			created[n] = frames
			continue
		}
		if line == "" || (!strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "\t")) {
			frames = nil // other sections
			continue
		}
		if frames == nil || i == 0 {
			continue
		}
		if m := raceFile.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[2])
			*frames = append(*frames, raceFrame{function: strings.TrimSpace(lines[i-1]), file: m[1], line: n})
		}
	}
	for _, side := range []*raceAccess{&cur, &prev} {
		if fs := created[side.goroutine]; fs != nil {
			side.created = *fs
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
//
// tr, the run's trace when it could be read (else nil), names the atomic side of a race
// between an atomic and a plain access when the race detector's stack of it stops inside
// sync/atomic.
func raceFindings(reports [][]string, module string, tr *trace.Trace) []analysis.Finding {
	var out []analysis.Finding
	for _, lines := range reports {
		cur, prev, ok := parseRace(lines)
		if !ok {
			continue
		}
		cf, ok1 := userFrame(cur.frames, module)
		pf, ok2 := userFrame(prev.frames, module)
		if !ok1 || !ok2 {
			if f, ok := mixedRace(cur, prev, module, tr); ok {
				addTestCalls(&f, module, cur, prev)
				out = append(out, f)
			}
			continue
		}
		f := analysis.Finding{Confidence: analysis.Actual, Severity: analysis.SeverityError}
		cTop, pTop := cur.frames[0].function, prev.frames[0].function
		switch {
		case wgMethod(cur) != "" && wgMethod(prev) != "" && wgMethod(cur) != wgMethod(prev):
			// The race detector's model of a WaitGroup: an Add from a zero counter reads
			// the group, a Wait that blocks writes it. Reported as the trace's rule
			// WgAddWait does (analysis/rules_waitgroup.go), at the Add, so that the two
			// reports of one race are one finding (campaign.merge: same primary).
			add, wait := cf, pf
			if wgMethod(cur) == "Wait" {
				add, wait = pf, cf
			}
			f.Kind = "data-race"
			f.Message = fmt.Sprintf("WaitGroup Add at %s:%d, from a zero counter, races with the Wait at %s:%d (race detector): an Add from a zero counter must happen before the Wait (call it before the go statement)",
				filepath.Base(add.file), add.line, filepath.Base(wait.file), wait.line)
			f.Positions = []analysis.Position{position("add", add), position("wait", wait)}
		case (isRuntime(cTop) || isRuntime(pTop)) && !(isRuntimeCopyOrUser(cTop) && isRuntimeCopyOrUser(pTop)):
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
		case isAtomic(cur) != isAtomic(prev):
			plain, atomic, pfr, afr := cur, prev, cf, pf
			if isAtomic(cur) {
				plain, atomic, pfr, afr = prev, cur, pf, cf
			}
			f = mixedFinding(plain, pfr, position("atomic "+atomic.op, afr), "")
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
		if f.Kind == "data-race" {
			addTestCalls(&f, module, cur, prev)
		}
		out = append(out, f)
	}
	return out
}

// addTestCalls adds to data race f, whose accesses are at the innermost frames of the
// module (the library's racing lines when the race is inside the package's code), the test's
// calls that led to them: the innermost frame of each stack in a _test.go file, as related
// positions (the fingerprint keeps to the two accesses).
func addTestCalls(f *analysis.Finding, module string, sides ...raceAccess) {
	root := filepath.Clean(module) + string(filepath.Separator)
	for _, side := range sides {
		for _, fr := range side.frames {
			if !strings.HasSuffix(fr.file, "_test.go") || module != "" && !strings.HasPrefix(fr.file, root) {
				continue
			}
			p := position("test's call ("+side.op+")", fr)
			if !slices.ContainsFunc(f.Positions, func(q analysis.Position) bool { return q.File == p.File && q.Line == p.Line }) {
				f.Positions = append(f.Positions, p)
			}
			break
		}
	}
}

// wgMethod is "Add" or "Wait" when the access is the race detector's model of that
// WaitGroup method (its stack starts in it, under the race runtime's own frame), else "".
// WaitGroup.Go's Add counts as an Add.
func wgMethod(a raceAccess) string {
	for _, fr := range a.frames {
		switch {
		case isRuntime(fr.function):
			continue
		case strings.HasPrefix(fr.function, "sync.(*WaitGroup).Add"):
			return "Add"
		case strings.HasPrefix(fr.function, "sync.(*WaitGroup).Wait"):
			return "Wait"
		}
		return ""
	}
	return ""
}

// isAtomic reports whether a race's access is an atomic one: the race detector labels some
// "atomic", and the stack of the others starts in sync/atomic.
func isAtomic(a raceAccess) bool {
	return strings.HasPrefix(a.op, "atomic") || len(a.frames) > 0 && strings.HasPrefix(a.frames[0].function, "sync/atomic.")
}

// mixedRace is the finding of a race between a plain and an atomic access whose atomic
// side has no frame in the module: the race detector's stack of an atomic access can stop
// in sync/atomic (a typed atomic's method inlined into its caller: "sync/atomic.(*Int64).Store"
// and nothing above it). The plain access is the one to fix, and its stack is whole. The
// atomic one is found in the trace, which records every typed atomic operation at the
// user's call with the address of its word and the goroutine; failing that, the
// goroutine's creation names where it came from.
func mixedRace(cur, prev raceAccess, module string, tr *trace.Trace) (analysis.Finding, bool) {
	plain, atomic := cur, prev
	if isAtomic(cur) {
		plain, atomic = prev, cur
	}
	pf, ok := userFrame(plain.frames, module)
	if !ok || isAtomic(plain) || !isAtomic(atomic) {
		return analysis.Finding{}, false
	}
	if p, ok := atomicInTrace(tr, atomic); ok {
		return mixedFinding(plain, pf, p, ""), true
	}
	if cf, ok := userFrame(atomic.created, module); ok {
		spawn := fmt.Sprintf("%s:%d", filepath.Base(cf.file), cf.line)
		return mixedFinding(plain, pf, position("goroutine of the atomic "+atomic.op, cf), "in the goroutine started at "+spawn), true
	}
	return mixedFinding(plain, pf, analysis.Position{}, ""), true
}

// mixedFinding reports a plain access (at pf) racing with an atomic one at ap (File empty
// when unknown; where, when set, says where the atomic access ran instead).
func mixedFinding(plain raceAccess, pf raceFrame, ap analysis.Position, where string) analysis.Finding {
	f := analysis.Finding{Kind: "data-race", Confidence: analysis.Actual, Severity: analysis.SeverityError}
	f.Positions = []analysis.Position{position("plain "+plain.op, pf)}
	switch {
	case ap.File == "":
		f.Message = fmt.Sprintf("plain %s races with an atomic access to the same word (race detector): every access to a word used atomically must be atomic", plain.op)
	case where != "":
		f.Message = fmt.Sprintf("plain %s races with an atomic access to the same word %s (race detector): every access to a word used atomically must be atomic", plain.op, where)
		f.Positions = append(f.Positions, ap)
	default:
		f.Message = fmt.Sprintf("plain %s races with the %s at %s:%d (race detector): every access to a word used atomically must be atomic", plain.op, ap.Role, filepath.Base(ap.File), ap.Line)
		f.Positions = append(f.Positions, ap)
	}
	f.Fingerprint = raceFingerprint(f)
	return f
}

// atomicInTrace finds the atomic access a of a race report in trace tr: the last typed
// atomic operation on a's address (a write: a Store or read-modify-write; a read: a Load).
// Not by goroutine: the race detector numbers goroutines its own way, not by goid.
func atomicInTrace(tr *trace.Trace, a raceAccess) (analysis.Position, bool) {
	if tr == nil || a.addr == 0 {
		return analysis.Position{}, false
	}
	write := strings.Contains(a.op, "write")
	for i := len(tr.Events) - 1; i >= 0; i-- {
		ev := &tr.Events[i]
		if ev.A != a.addr {
			continue
		}
		var role string
		switch {
		case ev.Kind == trace.KindAtomicLoad && !write:
			role = "atomic load"
		case ev.Kind == trace.KindAtomicStore && write:
			role = "atomic store"
		case ev.Kind == trace.KindAtomicRMW && write:
			role = "atomic read-modify-write"
		default:
			continue
		}
		p := tr.Position(ev.Pos)
		if p.File == "" {
			continue
		}
		return analysis.Position{Role: role, File: p.File, Line: p.Line, Column: analysis.LineColumn(p.File, p.Line)}, true
	}
	return analysis.Position{}, false
}

// isRaceFinding reports whether f came from a race report rather than a trace.
func isRaceFinding(f *Finding) bool { return strings.HasPrefix(f.Fingerprint, racePrefix) }

const racePrefix = "race:"

func isRuntime(function string) bool { return strings.HasPrefix(function, "runtime.") }

// isRuntimeCopyOrUser reports whether a race report's top frame is the caller's own access:
// a function outside the runtime, or one of the runtime's helpers that read or write memory
// for the compiled code (converting a value to an interface, copying or clearing a typed
// value): `assert.Equal(t, want, s.counts)` reads s.counts in runtime.convTnoptr, and the
// racing line is the caller's (survey 9: gobreaker's tests failed on such races in every run
// and goweave reported nothing).
func isRuntimeCopyOrUser(function string) bool {
	name, ok := strings.CutPrefix(function, "runtime.")
	if !ok {
		return true
	}
	for _, p := range []string{"convT", "typedmemmove", "memmove", "typedslicecopy", "memclr", "typedmemclr", "wbMove", "bulkBarrierPreWrite"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

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
	if len(f.Positions) == 1 {
		return racePrefix + f.Kind + ":" + a
	}
	b := fmt.Sprintf("%s:%d", f.Positions[1].File, f.Positions[1].Line)
	if f.Kind == "data-race" && b < a {
		a, b = b, a
	}
	return racePrefix + f.Kind + ":" + a + ":" + b
}
