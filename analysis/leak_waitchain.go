package analysis

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/goweave/goweave/analysis/trace"
)

// waitChainRule is the rule markWaitChain applies, shown in leak-waitgroup's doc.
const waitChainRule = `A Wait blocked forever because the goroutines owing its missing Dones are themselves
test-only leaks (a router's handlers, left running because the test never closed the
router) follows them: test-only, a warning, naming those goroutines ("waits for the Done of
..., a leak of the test's"). A goroutine owes the Wait a Done when it never called Done on
that WaitGroup in the run and the code its go statement starts (the function literal, or
the package's functions and methods of the called name) calls Done on a WaitGroup of the
same name (the last name of the Wait's operand: r.handlersWg and h.handlersWg match), or,
whatever the name, calls some X.Done() and was started right after its starter's Add on
that WaitGroup (wg.Add(1); go func() { defer wg.Done() ... }(): the WaitGroup handed to a
helper that waits under another name). Other WaitGroups passed under another name are not
followed.
The Wait follows them only when they are at least as many as the Dones missing at the end
(the counter's last value) and every one of them is test-only; one that is the package's
leak keeps the Wait the package's (an error).`

// markWaitChain marks test-only the leak-waitgroup leaks whose missing Dones belong to
// test-only leaks (waitChainRule), repeated until nothing changes (a Wait behind a Wait).
func (r *Result) markWaitChain(leaks []leak) {
	evs := r.Trace.Events
	var counter map[uint64]int64  // WaitGroup -> its counter after its last Add or Done
	var doneBy map[[2]uint64]bool // {WaitGroup, goroutine} -> the goroutine called Done on it
	for changed := true; changed; {
		changed = false
		for k := range leaks {
			l := &leaks[k]
			ev := &evs[l.ev]
			if l.testOnly || ev.Kind != trace.KindWgWait || ev.Obj == 0 {
				continue
			}
			if counter == nil {
				counter, doneBy = r.wgCounters()
			}
			missing := counter[ev.Obj]
			name := lastName(r.operand(l.ev, ""))
			if missing <= 0 {
				continue
			}
			var owers []int32
			mine := true
			for j := range leaks {
				o := &leaks[j]
				g := r.gOf[o.ev]
				if j == k || g < 0 || g == r.gOf[l.ev] || doneBy[[2]uint64{ev.Obj, uint64(g)}] {
					continue
				}
				s := r.Goroutines[g].Spawn
				if s < 0 || evs[s].Pos == 0 {
					continue
				}
				p := r.Trace.Position(evs[s].Pos)
				byName := name != "" && spawnCallsDone(p.File, p.Line, name)
				if !byName && (!r.addedBeforeSpawn(ev.Obj, int32(s)) || !spawnCallsDone(p.File, p.Line, "")) {
					continue
				}
				if !o.testOnly {
					mine = false
					break
				}
				owers = append(owers, o.ev)
			}
			if !mine || int64(len(owers)) < missing {
				continue
			}
			l.testOnly, l.owers = true, owers
			for _, o := range owers {
				l.related = append(l.related, op{"owes a Done", o})
			}
			changed = true
		}
	}
}

// wgCounters returns each WaitGroup's counter after its last recorded Add or Done (the
// event's b), and which goroutines called Done on which WaitGroup.
func (r *Result) wgCounters() (map[uint64]int64, map[[2]uint64]bool) {
	counter := map[uint64]int64{}
	doneBy := map[[2]uint64]bool{}
	for i := range r.Trace.Events {
		ev := &r.Trace.Events[i]
		switch ev.Kind {
		case trace.KindWgAdd, trace.KindWgDone:
			counter[ev.Obj] = int64(ev.B)
			if ev.Kind == trace.KindWgDone || int64(ev.A) < 0 {
				doneBy[[2]uint64{ev.Obj, uint64(r.gOf[i])}] = true
			}
		}
	}
	return counter, doneBy
}

// lastName is the last name of an operand: handlersWg of r.handlersWg, wg of wg.
func lastName(operand string) string {
	if i := strings.LastIndexByte(operand, '.'); i >= 0 {
		operand = operand[i+1:]
	}
	if strings.ContainsAny(operand, "[()") {
		return ""
	}
	return operand
}

// waitChainText is the message part of a Wait that follows the test-only leaks owing its Dones.
func (r *Result) waitChainText(l leak) string {
	var at []string
	for _, o := range l.owers {
		at = append(at, fmt.Sprintf("%s, blocked at %s", r.spawnedAt(o), r.at(o)))
	}
	return fmt.Sprintf("; the Done it waits for belongs to %s, a leak of the test's: test-only", strings.Join(at, "; "))
}

type doneKey struct {
	file       string
	line       int
	name, stat string
}

var (
	doneMu    sync.Mutex
	doneCache = map[doneKey]bool{}
)

// spawnCallsDone reports whether the go statement at file:line starts code that calls
// X.Done() for an X whose last name is name: its function literal's body, or the bodies of
// the functions and methods of the package's directory named as the called function.
func spawnCallsDone(file string, line int, name string) bool {
	if file == "" {
		return false
	}
	key := doneKey{file, line, name, dirStamp(filepath.Dir(file))}
	doneMu.Lock()
	v, ok := doneCache[key]
	doneMu.Unlock()
	if !ok {
		v = computeSpawnCallsDone(file, line, name)
		doneMu.Lock()
		if len(doneCache) > 4096 {
			clear(doneCache)
		}
		doneCache[key] = v
		doneMu.Unlock()
	}
	return v
}

func computeSpawnCallsDone(file string, line int, name string) bool {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		return false
	}
	var g *ast.GoStmt
	ast.Inspect(f, func(n ast.Node) bool {
		if s, ok := n.(*ast.GoStmt); ok && g == nil && fset.Position(s.Pos()).Line == line {
			g = s
		}
		return g == nil
	})
	if g == nil {
		return false
	}
	if lit, ok := ast.Unparen(g.Call.Fun).(*ast.FuncLit); ok {
		return callsDone(lit.Body, name)
	}
	callee := calleeName(g.Call)
	if callee == "" {
		return false
	}
	dir := filepath.Dir(file)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		pf, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil || pf.Name.Name != f.Name.Name {
			continue
		}
		for _, d := range pf.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == callee && fd.Body != nil && callsDone(fd.Body, name) {
				return true
			}
		}
	}
	return false
}

// callsDone reports whether body calls X.Done() with no arguments as a statement (or
// deferred), X's last name being name, or any X when name is "" (a statement: ctx.Done()
// returns a channel, used in an expression).
func callsDone(body *ast.BlockStmt, name string) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		var c *ast.CallExpr
		switch s := n.(type) {
		case *ast.ExprStmt:
			c, _ = ast.Unparen(s.X).(*ast.CallExpr)
		case *ast.DeferStmt:
			c = s.Call
		}
		if c == nil || len(c.Args) != 0 {
			return !found
		}
		sel, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Done" {
			return !found
		}
		switch x := ast.Unparen(sel.X).(type) {
		case *ast.Ident:
			found = found || name == "" || x.Name == name
		case *ast.SelectorExpr:
			found = found || name == "" || x.Sel.Name == name
		}
		return !found
	})
	return found
}

// addedBeforeSpawn reports whether the goroutine that ran spawn s called Add on WaitGroup
// wg as its last WaitGroup operation before it (wg.Add(1); go func() { defer wg.Done() }):
// the goroutine started owes wg a Done, whatever name its code gives the WaitGroup.
func (r *Result) addedBeforeSpawn(wg uint64, s int32) bool {
	evs := r.Trace.Events
	for j := s - 1; j >= 0; j-- {
		if r.gOf[j] != r.gOf[s] {
			continue
		}
		switch evs[j].Kind {
		case trace.KindWgAdd:
			return evs[j].Obj == wg && int64(evs[j].A) > 0
		case trace.KindWgDone, trace.KindWgWait:
			return false
		}
	}
	return false
}
