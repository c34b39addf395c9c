package analysis

import (
	"fmt"
	"go/ast"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/goweave/goweave/analysis/trace"
)

// UnjoinedGoroutine: a test that checks for leftover goroutines (goleak, or a comparison of
// runtime.NumGoroutine) passes only because the package's goroutines happen to exit before
// the check gives up. The check retries for a while, which is a timeout: a goroutine the OS
// deschedules for longer fails the test. Nothing in the run fails, so the bug is read off
// the happens-before relation: a goroutine the test's calls started ended before the test
// did, yet its last operation is not ordered before the test's end (no WaitGroup Done, send,
// close or Unlock of it reached the test goroutine). The usual cause is a Stop or Close that
// tells its goroutines to quit and returns without waiting for them.
var UnjoinedGoroutine = &Detector{
	Name: "unjoined-goroutine",
	Doc: `A goroutine of the package outlives the call that stopped it, in a test that checks for leftover goroutines: the check passes only because the goroutine exits quickly.

goleak.VerifyNone (and VerifyTestMain, or a test comparing runtime.NumGoroutine) sees every
goroutine still running when it looks, and retries for a while (goleak 1.3: 20 times, about
0.4 s in all) before it fails. A goroutine that was told to stop (a nil task, a closed done
channel) but that nothing waits for is still running when Stop returns; it usually exits
within the retries, so the test passes, but a goroutine descheduled for longer (a loaded CI
machine) fails it. Reported when the goroutine's last operation does not happen before the
end of the test; the goroutine's stop signal is the primary position. Fix it by waiting for
the goroutines before Stop returns (a WaitGroup whose Done they defer, or a channel each
closes on exit).`,
	Run: func(r *Result) []Finding { return r.unjoinedGoroutines() },
}

// goroutineCheck is a leftover-goroutine check a test makes.
type goroutineCheck struct {
	what string   // "goleak.VerifyNone", ...
	at   Position // the call
}

// leftoverCheck finds the check the test makes: a call of goleak's VerifyNone or
// runtime.NumGoroutine in the test function's body (closures included, so a t.Cleanup that
// verifies counts), or goleak.VerifyTestMain in a TestMain of the package. Helpers that
// verify are not followed.
func leftoverCheck(dir, test string) (goroutineCheck, bool) {
	if dir == "" || test == "" {
		return goroutineCheck{}, false
	}
	test, _, _ = strings.Cut(test, "/")
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	var main goroutineCheck
	for _, file := range files {
		f, fset := parsedFile(file)
		if f == nil {
			continue
		}
		goleak, runtime := "", ""
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			name := filepath.Base(path)
			if im.Name != nil {
				name = im.Name.Name
			}
			switch path {
			case "go.uber.org/goleak":
				goleak = name
			case "runtime":
				runtime = name
			}
		}
		if goleak == "" && runtime == "" {
			continue
		}
		abs, err := filepath.Abs(file)
		if err != nil {
			abs = file
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || fd.Body == nil || (fd.Name.Name != test && fd.Name.Name != "TestMain") {
				continue
			}
			var found goroutineCheck
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || found.what != "" {
					return found.what == ""
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				x, ok := sel.X.(*ast.Ident)
				if !ok {
					return true
				}
				name := ""
				switch {
				case goleak != "" && x.Name == goleak && fd.Name.Name == test && sel.Sel.Name == "VerifyNone" && checksAtEnd(fd.Body, call),
					goleak != "" && x.Name == goleak && fd.Name.Name == "TestMain" && sel.Sel.Name == "VerifyTestMain":
					name = x.Name + "." + sel.Sel.Name
				default:
					return true
				}
				p := fset.Position(call.Pos())
				found = goroutineCheck{what: name, at: Position{Role: "check", File: abs, Line: p.Line, Column: p.Column}}
				return false
			})
			if found.what == "" && runtime != "" && fd.Name.Name == test {
				if at, ok := comparedGoroutines(fd.Body, runtime); ok {
					p := fset.Position(at)
					found = goroutineCheck{what: runtime + ".NumGoroutine", at: Position{Role: "check", File: abs, Line: p.Line, Column: p.Column}}
				}
			}
			if found.what == "" {
				continue
			}
			if fd.Name.Name == test {
				return found, true
			}
			main = found
		}
	}
	return main, main.what != ""
}

// checksAtEnd reports whether VerifyNone call runs when the test is done with its
// goroutines: deferred, in a function literal (a t.Cleanup, a deferred closure) or the
// test's last statement. Called first (gocron's TestScheduler_Shutdown), it checks what
// earlier tests left, not the goroutines this test starts after it.
func checksAtEnd(body *ast.BlockStmt, call *ast.CallExpr) bool {
	if n := len(body.List); n > 0 {
		if es, ok := body.List[n-1].(*ast.ExprStmt); ok && es.X == call {
			return true
		}
	}
	late := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.DeferStmt:
			late = late || n.Call == call
		case *ast.FuncLit:
			late = late || (n.Pos() <= call.Pos() && call.End() <= n.End())
		}
		return !late
	})
	return late
}

// comparedGoroutines finds where body compares a count of runtime.NumGoroutine (rt is the
// package's name in the file) with another: a comparison operator or a testify-style
// assertion (Equal, Less, ...) with a call of it, or a variable set from one, as an operand.
// A NumGoroutine only logged checks nothing.
func comparedGoroutines(body *ast.BlockStmt, rt string) (token.Pos, bool) {
	isCall := func(e ast.Expr) bool {
		call, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok {
			return false
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		x, ok := sel.X.(*ast.Ident)
		return ok && x.Name == rt && sel.Sel.Name == "NumGoroutine"
	}
	counts := map[string]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == len(as.Rhs) {
			for k, rhs := range as.Rhs {
				if id, ok := as.Lhs[k].(*ast.Ident); ok && isCall(rhs) {
					counts[id.Name] = true
				}
			}
		}
		return true
	})
	isCount := func(e ast.Expr) bool {
		if id, ok := ast.Unparen(e).(*ast.Ident); ok {
			return counts[id.Name]
		}
		return isCall(e)
	}
	var at token.Pos
	ast.Inspect(body, func(n ast.Node) bool {
		if at.IsValid() {
			return false
		}
		switch n := n.(type) {
		case *ast.BinaryExpr:
			switch n.Op {
			case token.LSS, token.GTR, token.LEQ, token.GEQ, token.EQL, token.NEQ:
				if isCount(n.X) || isCount(n.Y) {
					at = n.Pos()
				}
			}
		case *ast.CallExpr:
			name := ""
			switch f := n.Fun.(type) {
			case *ast.SelectorExpr:
				name = f.Sel.Name
			case *ast.Ident:
				name = f.Name
			}
			if strings.HasPrefix(name, "Equal") || strings.HasPrefix(name, "Less") || strings.HasPrefix(name, "Greater") {
				for _, a := range n.Args {
					if isCount(a) {
						at = n.Pos()
					}
				}
			}
		}
		return !at.IsValid()
	})
	return at, at.IsValid()
}

func (r *Result) unjoinedGoroutines() []Finding {
	check, ok := leftoverCheck(r.opts.Dir, r.opts.Test)
	if !ok || r.end() != endNormal {
		return nil
	}
	evs := r.Trace.Events
	// The test's end: its last TestEnd (a test's subtests end before it).
	// Every subtest's end is also one: testing's tRunner waits for a subtest before its
	// parent ends, through its own channels, which are not recorded.
	end := int32(-1)
	var ends []int32
	for i := range evs {
		if evs[i].Kind == trace.KindTestEnd {
			end = int32(i)
			ends = append(ends, end)
		}
	}
	testG, err := strconv.ParseUint(r.Trace.Meta["testgoid"], 10, 64)
	if end < 0 || err != nil {
		return nil
	}
	// Per goroutine, its last operation before it ended (GoEnd before the test's end: one
	// still running at the end was either left on purpose, ignored by the check, or
	// failed it, which the run reports itself).
	last := make([]int32, len(r.Goroutines))
	ended := make([]bool, len(r.Goroutines))
	for i := range last {
		last[i] = -1
	}
	for i := range evs[:end] {
		g := r.gOf[i]
		if g < 0 {
			continue
		}
		if evs[i].Kind == trace.KindGoEnd {
			ended[g] = true
		} else if !ended[g] {
			last[g] = int32(i)
		}
	}
	var clocks *Clocks
	// One finding per go statement: of its goroutines, the one that ended last (the one
	// closest to failing the check).
	pick := map[uint32]int32{}
	var order []uint32
	for g := range r.Goroutines {
		info := &r.Goroutines[g]
		if !ended[g] || last[g] < 0 || info.Spawn < 0 || evs[info.Spawn].Pos == 0 ||
			evs[last[g]].Kind == trace.KindGoSpawn || // its child carries on: the child's exit is the one to check
			r.spawnedInTest(int32(g)) || !r.descendsFrom(int32(g), testG) {
			continue
		}
		l := last[g]
		if signals(&evs[l]) {
			if clocks == nil {
				if clocks, err = r.ClocksWithin(); err != nil {
					return nil
				}
			}
			if slices.ContainsFunc(ends, func(e int32) bool { return clocks.HappensBefore(int(l), int(e)) }) {
				continue
			}
		}
		pos := evs[info.Spawn].Pos
		if prev, ok := pick[pos]; !ok {
			order = append(order, pos)
			pick[pos] = int32(g)
		} else if last[prev] < l {
			pick[pos] = int32(g)
		}
	}
	if len(order) > 0 && clocks == nil {
		if clocks, err = r.ClocksWithin(); err != nil {
			return nil
		}
	}
	var out []Finding
	for _, pos := range order {
		g := pick[pos]
		out = append(out, r.unjoinedFinding(check, g, last[g], end, clocks))
	}
	return out
}

// signals reports whether operation e tells others something: a send, close, Done, Unlock,
// Signal or atomic write. A goroutine whose last operation is one of these and happens
// before the check has told the test it is leaving; one whose last operation is a receive
// (or Lock, Wait) has not, even when the receive is ordered before the check (an unbuffered
// channel's receive happens before its send completes): it still runs after it.
func signals(e *trace.Event) bool {
	switch e.Kind {
	case trace.KindChanSend, trace.KindChanClose, trace.KindWgAdd, trace.KindWgDone, trace.KindUnlock, trace.KindRUnlock,
		trace.KindCondSignal, trace.KindCondBroadcast, trace.KindAtomicStore, trace.KindAtomicRMW:
		return true
	case trace.KindSelect:
		return e.A < uint64(len(e.Cases)) && e.Cases[e.A].Send
	}
	return false
}

// descendsFrom reports whether goroutine g was started, directly or through other
// goroutines, by the goroutine of goid root.
func (r *Result) descendsFrom(g int32, root uint64) bool {
	for range len(r.Goroutines) {
		p := r.Goroutines[g].Parent
		if p == root {
			return true
		}
		q, ok := r.gIndex[p]
		if !ok || p == 0 {
			return false
		}
		g = q
	}
	return false
}

// unjoinedFinding describes goroutine g whose last operation l is not ordered before the
// test's end.
func (r *Result) unjoinedFinding(check goroutineCheck, g, l, end int32, clocks *Clocks) Finding {
	evs := r.Trace.Events
	spawn := int32(r.Goroutines[g].Spawn)
	signal := r.stopSignal(l)
	// Where the test goroutine went on without the goroutine: its last operation in the
	// package's code after the stop signal (Stop's receive of "the dispatcher is done").
	var returned int32 = -1
	if signal >= 0 {
		tg := r.gOf[end]
		// (from the end back: a receive that blocked until after the signal was requested,
		// and recorded, before it)
		for i := end - 1; i >= 0; i-- {
			if r.gOf[i] == tg && evs[i].Kind != trace.KindTestEnd && clocks.HappensBefore(int(signal), int(i)) {
				if p := r.Trace.Position(evs[i].Pos); p.File != "" && !strings.HasSuffix(p.File, "_test.go") {
					returned = i
					break
				}
			}
		}
	}
	checkAt := fmt.Sprintf("%s:%d", filepath.Base(check.at.File), check.at.Line)
	msg := fmt.Sprintf("%s at %s passed only by timing: the goroutine started at %s", check.what, checkAt, r.at(spawn))
	if signal >= 0 {
		msg += fmt.Sprintf(" was told to stop by the %s at %s, received it at %s and exited after it", r.opWord(signal), r.at(signal), r.at(l))
		if returned >= 0 {
			msg += fmt.Sprintf(", while the test went on from %s", r.at(returned))
		}
	} else {
		msg += fmt.Sprintf(" exited after its last operation at %s", r.at(l))
	}
	retries := "the test's polling"
	if strings.Contains(check.what, ".Verify") {
		retries = "goleak's retries (about 0.4 s by default)"
	}
	msg += fmt.Sprintf("; nothing orders its exit before the test's end (no WaitGroup Wait, receive or Lock waits for it): the check passed within %s, and a goroutine descheduled longer than that fails it", retries)
	ops := []op{}
	if signal >= 0 {
		ops = append(ops, op{"stop signal", signal})
	}
	ops = append(ops, op{"goroutine's last operation", l}, op{"go statement", spawn})
	if returned >= 0 {
		ops = append(ops, op{"returned without waiting", returned})
	}
	f := r.newFinding("unjoined-goroutine", Predicted, msg, ops...)
	if f.Kind == "" {
		return f
	}
	extra := []int32{l, spawn}
	if signal >= 0 {
		extra = append(extra, signal)
	}
	if returned >= 0 {
		extra = append(extra, returned)
	}
	f.Positions = append(f.Positions, check.at)
	f.Positions = append(f.Positions, r.testCalls(extra...)...)
	f.Fingerprint = r.fingerprint(f.Kind, f.Positions)
	return f
}

// stopSignal is the operation of another goroutine, in the package's code, that completed
// receive l: the send of the value it got or the close it saw; -1 when l is no receive or
// its partner was not recorded there.
func (r *Result) stopSignal(l int32) int32 {
	ev := &r.Trace.Events[l]
	var ch uint64
	closed := false
	var seq uint64
	switch ev.Kind {
	case trace.KindChanRecv:
		ch, seq, closed = ev.Obj, ev.A, ev.Flags.Has(trace.FlagClosed)
	case trace.KindSelect:
		if ev.A >= uint64(len(ev.Cases)) || ev.Cases[ev.A].Send {
			return -1
		}
		ch, seq, closed = ev.Cases[ev.A].Obj, ev.B, ev.Flags.Has(trace.FlagClosed)
	default:
		return -1
	}
	if ch == 0 {
		return -1
	}
	// (anywhere in the trace: events are in the order they were requested, and a receive
	// that blocked is requested before the send or close that completes it)
	for i := range r.Trace.Events {
		e := &r.Trace.Events[i]
		hit := false
		switch {
		case closed:
			hit = e.Kind == trace.KindChanClose && e.Obj == ch
		case seq != 0:
			c, s, send, ok := orderChanSeq(e)
			hit = ok && send && c == ch && s == seq
		}
		if hit && r.gOf[i] != r.gOf[l] {
			if p := r.Trace.Position(e.Pos); p.File != "" && !strings.HasSuffix(p.File, "_test.go") {
				return int32(i)
			}
			return -1
		}
	}
	return -1
}

// opWord names a stop signal's operation for the message.
func (r *Result) opWord(i int32) string {
	switch r.Trace.Events[i].Kind {
	case trace.KindChanClose:
		return "close"
	case trace.KindSelect:
		return "select's send"
	}
	return "send"
}
