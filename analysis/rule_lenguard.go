package analysis

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/goweave/goweave/analysis/trace"
)

// Rule length-guarded receives: `for len(ch) > 0 { <-ch }` (or an if) drains what is
// buffered and never waits, when no other goroutine receives from ch: the length it saw
// can only grow before its receive. Such a receive under a lock is not the blocking side
// of a mixed deadlock (karlseguin/ccache's worker drains promotables and deletables that
// way while it holds every bucket's lock in Clear; both were predicted mixed-deadlocks at
// the fix of the fixed-bug row ccache-clear-concurrent-set). The guard is read from the
// source, the sole receiver from the trace.

// lenGuardedRecv reports whether receive i is guarded by a length check of the channel it
// receives from, made by the only goroutine that receives from that channel in the run.
func (r *Result) lenGuardedRecv(i int32) bool {
	ev := &r.Trace.Events[i]
	if ev.Kind != trace.KindChanRecv || ev.Obj == 0 {
		return false
	}
	// The source first: parsed once per file, where the receivers take a pass over the trace.
	p := r.Trace.Position(ev.Pos)
	return lenGuarded(p.File, p.Line) && r.soleReceiver(i, ev.Obj)
}

// soleReceiver reports whether every receive from channel obj in the run, plain or a select's
// case, chosen or not, is goroutine i's.
func (r *Result) soleReceiver(i int32, obj uint64) bool {
	if r.receivers == nil {
		r.receivers = map[uint64]int32{}
		note := func(o uint64, g int32) {
			if prev, ok := r.receivers[o]; !ok {
				r.receivers[o] = g
			} else if prev != g {
				r.receivers[o] = -1
			}
		}
		for k := range r.Trace.Events {
			e := &r.Trace.Events[k]
			switch e.Kind {
			case trace.KindChanRecv:
				note(e.Obj, r.gOf[k])
			case trace.KindSelect:
				for _, c := range e.Cases {
					if !c.Send && c.Obj != 0 {
						note(c.Obj, r.gOf[k])
					}
				}
			}
		}
	}
	g, ok := r.receivers[obj]
	return ok && g >= 0 && g == r.gOf[i]
}

// lenGuarded reports whether the receive statement at line of file sits directly in the body
// of a for or if whose condition says the channel it receives from holds a value:
// len(ch) > 0, len(ch) != 0, len(ch) >= 1, or the same mirrored.
func lenGuarded(file string, line int) bool {
	f, fset := parsedFile(file)
	if f == nil {
		return false
	}
	guarded := false
	ast.Inspect(f, func(n ast.Node) bool {
		if guarded || n == nil {
			return false
		}
		if fset.Position(n.Pos()).Line > line || fset.Position(n.End()).Line < line {
			return false
		}
		var cond ast.Expr
		var body *ast.BlockStmt
		switch s := n.(type) {
		case *ast.ForStmt:
			cond, body = s.Cond, s.Body
		case *ast.IfStmt:
			cond, body = s.Cond, s.Body
		default:
			return true
		}
		ch := lenPositive(cond)
		if ch == "" {
			return true
		}
		for _, st := range body.List {
			if fset.Position(st.Pos()).Line == line && receivesFrom(st, ch) {
				guarded = true
				return false
			}
		}
		return true
	})
	return guarded
}

// lenPositive returns the source of ch when cond is a check that len(ch) is positive, else "".
func lenPositive(cond ast.Expr) string {
	b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok {
		return ""
	}
	lenOf := func(e ast.Expr) string {
		c, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok || len(c.Args) != 1 {
			return ""
		}
		if id, ok := c.Fun.(*ast.Ident); !ok || id.Name != "len" {
			return ""
		}
		return types.ExprString(c.Args[0])
	}
	lit := func(e ast.Expr, v string) bool {
		l, ok := ast.Unparen(e).(*ast.BasicLit)
		return ok && l.Kind == token.INT && l.Value == v
	}
	switch {
	case (b.Op == token.GTR || b.Op == token.NEQ) && lit(b.Y, "0"):
		return lenOf(b.X)
	case b.Op == token.GEQ && lit(b.Y, "1"):
		return lenOf(b.X)
	case (b.Op == token.LSS || b.Op == token.NEQ) && lit(b.X, "0"):
		return lenOf(b.Y)
	case b.Op == token.LEQ && lit(b.X, "1"):
		return lenOf(b.Y)
	}
	return ""
}

// receivesFrom reports whether statement st receives from the channel written ch: `<-ch`,
// `v := <-ch`, `v = <-ch`.
func receivesFrom(st ast.Stmt, ch string) bool {
	var x ast.Expr
	switch s := st.(type) {
	case *ast.ExprStmt:
		x = s.X
	case *ast.AssignStmt:
		if len(s.Rhs) != 1 {
			return false
		}
		x = s.Rhs[0]
	default:
		return false
	}
	u, ok := ast.Unparen(x).(*ast.UnaryExpr)
	return ok && u.Op == token.ARROW && types.ExprString(u.X) == ch
}
