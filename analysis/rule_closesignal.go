package analysis

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/goweave/goweave/analysis/trace"
)

// Rule close as a signal: a receive that gets the zero value of a closed channel is a bug
// only with evidence of harm, and idiomatic Go closes a channel to say "nothing more": a
// goroutine defers close(errCh) and sends only on failure, and the reader checks
// `if err := <-errCh; err != nil`. The zero value is then the designed outcome. What the
// trace and the source can show decides:
//   - harm, a value lost: some send on the channel ran in a goroutine other than the one
//     that closed it. That sender's value went elsewhere in this run, and the closer does
//     not own it: another ordering gives this receive the close instead of the value (or
//     the value instead of the close).
//   - a signal: the received value is compared with nil or its zero value (in the
//     receiving if statement, or in the if statement right after `v := <-ch`), is a bool
//     an if tests (`if <-ran {`), or is passed to a test's assertion of its zero value
//     (assert.False(t, <-ran), So(<-ran, ShouldBeFalse)), or the
//     channel is closed by a deferred close in the goroutine that made every send on it
//     (conditional reports before the close: the zero value means "no report").
//
// A receive is reported when it is not a signal, or when a value may be lost: a zero value
// used as a real one (v := <-ch; v.Field) stays a finding, as does a checked receive that
// other goroutines' sends could have fed. Comma-ok receives, range loops and receives whose
// result is ignored are not value receives and never reach this rule.
type closeSignal struct {
	r         *Result
	senders   map[uint64]map[int32]int32 // channel -> goroutine that sent on it -> its last send
	clocks    *Clocks                    // per-event clocks, when a sender's order to the close is asked
	clocksErr error
	memo      map[[2]int64]bool // (receive position, close event) -> harmless: a receive in a loop repeats
}

func newCloseSignal(r *Result) *closeSignal {
	return &closeSignal{r: r, memo: map[[2]int64]bool{}}
}

// harmless reports whether receive recv, which got or may get the zero value because of
// close cl (-1: the close was not recorded), reads the close as a signal and no value it
// waited for can be lost.
func (c *closeSignal) harmless(recv, cl int32) bool {
	k := [2]int64{int64(c.r.Trace.Events[recv].Pos), int64(cl)}
	h, ok := c.memo[k]
	if !ok {
		h = c.compute(recv, cl)
		c.memo[k] = h
	}
	return h
}

func (c *closeSignal) compute(recv, cl int32) bool {
	r := c.r
	ev := &r.Trace.Events[recv]
	closer := int32(-1)
	if cl >= 0 {
		closer = r.gOf[cl]
	}
	obj := ev.Obj
	if ev.Kind == trace.KindSelect {
		if ev.A >= uint64(len(ev.Cases)) {
			return false
		}
		obj = ev.Cases[ev.A].Obj
	}
	p := r.Trace.Position(ev.Pos)
	if cl >= 0 && closer == r.gOf[recv] && r.Trace.Events[cl].Pre < ev.Pre && zeroReturned(p.File, p.Line) {
		// The closer drains its own channel and returns what it gets: values sent before
		// the close come first, and the zero value says there was none (sarama's admin
		// calls: wg.Wait(); close(errChan); err = <-errChan; return). A send after the
		// close would panic, a finding of its own.
		return true
	}
	checked := zeroChecked(p.File, p.Line)
	for g, last := range c.sendersOf(obj) {
		if g == closer && closer >= 0 {
			continue
		}
		// A value another goroutine sent: this receive could have been its taker, unless
		// (for a checked receive) that goroutine's last send happens before the close,
		// so its values were in the channel before the zero value (a shutdown that closes
		// after every producer finished).
		if !checked || cl < 0 || !c.before(last, cl) {
			return false
		}
	}
	if checked {
		return true
	}
	if cl < 0 {
		return false
	}
	cp := r.Trace.Position(r.Trace.Events[cl].Pos)
	return deferredClose(cp.File, cp.Line)
}

// before reports whether event a happens before event b, by the per-event clocks, computed
// once and only when a checked receive has senders other than the closer; past the
// analysis's memory budget it says no (the receive stays a finding).
func (c *closeSignal) before(a, b int32) bool {
	if c.clocks == nil && c.clocksErr == nil {
		c.clocks, c.clocksErr = c.r.ClocksWithin()
	}
	return c.clocks != nil && c.clocks.HappensBefore(int(a), int(b))
}

// sendersOf returns the goroutines that sent on channel obj (plain sends and select send
// cases that communicated), each with its last such send, computed for every channel in one
// pass over the trace.
func (c *closeSignal) sendersOf(obj uint64) map[int32]int32 {
	if c.senders == nil {
		c.senders = map[uint64]map[int32]int32{}
		for i := range c.r.Trace.Events {
			ev := &c.r.Trace.Events[i]
			var ch uint64
			switch {
			case ev.Kind == trace.KindChanSend && ev.Post != 0:
				ch = ev.Obj
			case ev.Kind == trace.KindSelect && ev.A < uint64(len(ev.Cases)) && ev.Cases[ev.A].Send:
				ch = ev.Cases[ev.A].Obj
			default:
				continue
			}
			m := c.senders[ch]
			if m == nil {
				m = map[int32]int32{}
				c.senders[ch] = m
			}
			m[c.r.gOf[i]] = int32(i)
		}
	}
	return c.senders[obj]
}

// zeroChecked reports whether the receive on line of file compares its result with nil or
// a zero literal: `<-ch != nil`, `if v := <-ch; v != nil`, or `v := <-ch` (or v = <-ch)
// directly followed by an if statement that compares v so.
func zeroChecked(file string, line int) bool {
	f, fset := parsedFile(file)
	if f == nil {
		return false
	}
	found := false
	var stack []ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		if found {
			return false
		}
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		if fset.Position(n.Pos()).Line > line || fset.Position(n.End()).Line < line {
			return false
		}
		stack = append(stack, n)
		if u, ok := n.(*ast.UnaryExpr); ok && u.Op == token.ARROW && fset.Position(u.Pos()).Line == line {
			found = recvChecked(stack)
		}
		return true
	})
	return found
}

// zeroReturned reports whether the receive on line of file is returned: `return <-ch`, or
// `v = <-ch` (v := <-ch) followed by a return of v or a bare return.
func zeroReturned(file string, line int) bool {
	f, fset := parsedFile(file)
	if f == nil {
		return false
	}
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		if found || n == nil || fset.Position(n.Pos()).Line > line || fset.Position(n.End()).Line < line {
			return false
		}
		switch st := n.(type) {
		case *ast.ReturnStmt:
			found = len(st.Results) == 1 && isRecvOn(st.Results[0], fset, line)
		case *ast.BlockStmt:
			for k, x := range st.List {
				as, ok := x.(*ast.AssignStmt)
				if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 || !isRecvOn(as.Rhs[0], fset, line) || k+1 == len(st.List) {
					continue
				}
				if ret, ok := st.List[k+1].(*ast.ReturnStmt); ok {
					found = len(ret.Results) == 0 || len(ret.Results) == 1 && types.ExprString(ret.Results[0]) == types.ExprString(as.Lhs[0])
				}
			}
		}
		return !found
	})
	return found
}

// isRecvOn reports whether e is a receive expression (in parentheses or not) on line.
func isRecvOn(e ast.Expr, fset *token.FileSet, line int) bool {
	u, ok := ast.Unparen(e).(*ast.UnaryExpr)
	return ok && u.Op == token.ARROW && fset.Position(u.Pos()).Line == line
}

// recvChecked: stack ends at a receive expression; see zeroChecked.
func recvChecked(stack []ast.Node) bool {
	k := len(stack) - 1
	for k > 1 {
		if _, ok := stack[k-1].(*ast.ParenExpr); !ok {
			break
		}
		k--
	}
	if k < 2 {
		return false
	}
	recv, parent := stack[k].(ast.Expr), stack[k-1]
	if b, ok := parent.(*ast.BinaryExpr); ok {
		return comparesZero(b, types.ExprString(recv))
	}
	if boolCondition(stack[:k+1]) || assertsZero(parent, recv) {
		return true
	}
	as, ok := parent.(*ast.AssignStmt)
	if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 || as.Rhs[0] != recv {
		return false
	}
	v := types.ExprString(as.Lhs[0])
	if is, ok := stack[k-2].(*ast.IfStmt); ok && is.Init == as {
		return comparesZeroIn(is.Cond, v)
	}
	// The statement that runs next: after the assignment in its list, or, when the
	// assignment ends its block (a branch of an if, a case of a switch or select), after
	// the enclosing statement: `if n == 0 { v = <-ch } else { select { case v = <-ch: } }`
	// followed by `if v == nil { return }`. A loop's body ends by going round, not on.
	var cur ast.Node = as
	for j := k - 2; j >= 0; j-- {
		var list []ast.Stmt
		switch outer := stack[j].(type) {
		case *ast.IfStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			cur = outer
			continue
		case *ast.BlockStmt:
			switch cur.(type) {
			case *ast.CaseClause, *ast.CommClause: // the body of a switch or select
				cur = outer
				continue
			}
			list = outer.List
		case *ast.CaseClause:
			list = outer.Body
		case *ast.CommClause:
			if outer.Comm == cur {
				if len(outer.Body) > 0 {
					return ifCompares(outer.Body[0], v)
				}
				cur = outer
				continue
			}
			list = outer.Body
		default:
			return false
		}
		next, last := after(list, cur)
		if !last {
			return next != nil && ifCompares(next, v)
		}
		cur = stack[j]
	}
	return false
}

// boolCondition: stack ends at a receive that is an if statement's whole condition, or
// its negation (`if <-ran {`, `if !<-ok {`): a bool received and tested is compared with
// false as surely as `v == false` is.
func boolCondition(stack []ast.Node) bool {
	k := len(stack) - 1
	e := ast.Node(stack[k])
	for k > 0 {
		switch p := stack[k-1].(type) {
		case *ast.ParenExpr:
		case *ast.UnaryExpr:
			if p.Op != token.NOT {
				return false
			}
		case *ast.IfStmt:
			return p.Cond == e
		default:
			return false
		}
		k--
		e = stack[k]
	}
	return false
}

// zeroAssertions are the names of test assertions that check a value against its zero value
// (testify's assert and require, goconvey's So matchers), either way round, as an if with
// == nil or != nil does: the test that asserts `<-ran` is false reads the close as a signal.
var zeroAssertions = map[string]bool{
	"True": true, "False": true, "Nil": true, "NotNil": true, "Zero": true, "NotZero": true,
	"Empty": true, "NotEmpty": true, "NoError": true, "Error": true,
	"ShouldBeTrue": true, "ShouldBeFalse": true, "ShouldBeNil": true, "ShouldNotBeNil": true,
	"ShouldBeZeroValue": true, "ShouldNotBeZeroValue": true, "ShouldBeEmpty": true, "ShouldNotBeEmpty": true,
}

// assertsZero reports whether parent is a call that passes recv to an assertion of its zero
// value: assert.False(t, <-ch), require.Nil(t, <-errs), So(<-ch, ShouldBeFalse).
func assertsZero(parent ast.Node, recv ast.Expr) bool {
	call, ok := parent.(*ast.CallExpr)
	if !ok {
		return false
	}
	name := func(e ast.Expr) string {
		switch e := ast.Unparen(e).(type) {
		case *ast.Ident:
			return e.Name
		case *ast.SelectorExpr:
			return e.Sel.Name
		}
		return ""
	}
	isArg, matcher := false, zeroAssertions[name(call.Fun)]
	for _, a := range call.Args {
		if a == recv {
			isArg = true
		} else if zeroAssertions[name(a)] {
			matcher = true
		}
	}
	return isArg && matcher
}

// after returns the statement that follows s in list; last says s ends the list.
func after(list []ast.Stmt, s ast.Node) (next ast.Stmt, last bool) {
	for k, x := range list {
		if x == s {
			if k+1 < len(list) {
				return list[k+1], false
			}
			return nil, true
		}
	}
	return nil, false
}

func ifCompares(s ast.Stmt, v string) bool {
	is, ok := s.(*ast.IfStmt)
	return ok && comparesZeroIn(is.Cond, v)
}

// comparesZeroIn reports whether cond contains v == zero or v != zero.
func comparesZeroIn(cond ast.Expr, v string) bool {
	found := false
	ast.Inspect(cond, func(n ast.Node) bool {
		if b, ok := n.(*ast.BinaryExpr); ok && comparesZero(b, v) {
			found = true
		}
		return !found
	})
	return found
}

func comparesZero(b *ast.BinaryExpr, v string) bool {
	if b.Op != token.EQL && b.Op != token.NEQ {
		return false
	}
	return (types.ExprString(b.X) == v && isZeroLit(b.Y)) || (types.ExprString(b.Y) == v && isZeroLit(b.X))
}

func isZeroLit(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name == "nil" || e.Name == "false"
	case *ast.BasicLit:
		return e.Value == "0" || e.Value == `""` || e.Value == "``"
	}
	return false
}

// deferredClose reports whether the close on line of file is deferred: `defer close(ch)`,
// or a close inside a function literal that is deferred (defer func() { close(ch) }()).
func deferredClose(file string, line int) bool {
	f, fset := parsedFile(file)
	if f == nil {
		return false
	}
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		if found {
			return false
		}
		d, ok := n.(*ast.DeferStmt)
		if !ok {
			return true
		}
		if fset.Position(d.Pos()).Line > line || fset.Position(d.End()).Line < line {
			return true
		}
		ast.Inspect(d.Call, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok && fset.Position(c.Pos()).Line == line {
				if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "close" {
					found = true
				}
			}
			return !found
		})
		return !found
	})
	return found
}
