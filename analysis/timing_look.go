package analysis

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/goweave/goweave/analysis/trace"
)

// A timer that expired before its select looked. `select { case <-ca: ...; case
// <-time.After(time.Millisecond): t.Errorf(...) }` creates the timer as the select begins;
// its case can only be ready at the select's first look when the goroutine was delayed for
// the timer's whole duration in between (the machine, or a hold goweave did not record). If
// the other case was ready too, Go picked among two ready cases at random, and the timer
// won only because of that delay: the test's clock, not its synchronisation. Nothing else
// of the run is needed: the select's own record says both cases were ready when it looked
// (trace.Case.Ready), the timer's says who set it, when, and for how long.

// minLookTimer is the shortest timer whose expiry before the look counts: a timer already
// due when set (1 ns, or a zero duration) is ready at once without any delay.
const minLookTimer = 50 * time.Microsecond

// expiredAtLookOf returns the evidence of a select that took the case of a timer its own
// goroutine set before it, ready at the select's first look, while another case was ready
// too; nil when there is none. The longest such timer is named.
func expiredAtLookOf(tr *trace.Trace, waits []trace.Timed, reset map[uint64]bool) *Timing {
	timers := map[uint64][]trace.Timed{} // a channel timer's channel -> its settings (a Reset is one)
	long := false
	for _, w := range waits {
		if w.Aux != trace.WaitTimerChan {
			continue
		}
		if w.Dur <= 1 {
			// Already due when its goroutine set it: late by the whole duration the
			// source asks for, when it says (a time.After(0) is due at once).
			p := tr.Position(w.Pos)
			w.Dur = requestedTimer(p.File, p.Line)
		}
		// Every setting, the short ones too: the one right before a select is its clock.
		timers[w.Obj] = append(timers[w.Obj], w)
		long = long || w.Dur >= minLookTimer
	}
	if !long {
		return nil
	}
	rel := &timingRelation{tr: tr}
	rel.index()
	var best *Timing
	for i := range tr.Events {
		e := &tr.Events[i]
		if e.Kind != trace.KindSelect || !e.Completed() || e.A == trace.SelectDefault {
			continue
		}
		var took *trace.Case
		otherReady := false
		for j := range e.Cases {
			c := &e.Cases[j]
			switch {
			case c.Index == int(e.A):
				took = c
			case c.Ready && c.Obj != 0:
				otherReady = true
			}
		}
		if took == nil || took.Send || !took.Ready || !otherReady {
			continue
		}
		w, ok := settingBefore(timers[took.Obj], took.Obj, e.Pre)
		if !ok || w.Dur < minLookTimer || w.G != e.G || best != nil && ms(w.Dur) <= best.WaitMs || !setJustBefore(rel, w, e) {
			continue
		}
		at, sel := tr.Position(w.Pos), tr.Position(e.Pos)
		if at.File == "" || sel.File == "" {
			continue
		}
		d := roundUp2(w.Dur)
		wait, kind := timerWait(w, d, reset[w.Stamp])
		best = &Timing{
			Wait: wait, WaitKind: kind, WaitMs: ms(d),
			At:     Position{Role: "wait", File: at.File, Line: at.Line, Column: LineColumn(at.File, at.Line)},
			Waiter: timingGoroutine(tr, e.G), Delayed: timingGoroutine(tr, e.G), DelayedMs: ms(d),
			HeldAt: Position{Role: "held", File: sel.File, Line: sel.Line, Column: LineColumn(sel.File, sel.Line)},
			Late:   true, ExpiredAtLook: true,
		}
	}
	return best
}

// lookSummary is Summary for ExpiredAtLook.
func (t *Timing) lookSummary() string {
	who := t.waiterName()
	return fmt.Sprintf("%s waits with %s at %s:%d; it had expired when the select at %s:%d first looked, with another case ready too: %s was delayed at least %s between setting it and the select (not by goweave's schedule: by the machine or its own work), and Go picks among ready cases at random",
		who, t.Wait, filepath.Base(t.At.File), t.At.Line, filepath.Base(t.HeldAt.File), t.HeldAt.Line, who, formatMs(t.DelayedMs))
}

// setJustBefore reports whether timer w was set right before select e by e's goroutine (the
// time.After of the select statement, or a Reset right before it): nothing of that
// goroutine in between but the timer's own making and setting. A timer set earlier may have
// expired while its goroutine did other work, which is no delay.
func setJustBefore(rel *timingRelation, w trace.Timed, e *trace.Event) bool {
	for _, i := range rel.byG[e.G] {
		o := &rel.tr.Events[i]
		if o.Pre <= w.Stamp-1 || o.Pre >= e.Pre {
			continue
		}
		if o.Kind != trace.KindTimerSet && o.Kind != trace.KindChanMake {
			return false
		}
	}
	return true
}

// requestedTimers caches requestedTimer by file:line.
var requestedTimers struct {
	sync.Mutex
	at map[string]time.Duration
}

// requestedTimer is the duration the time.After or time.NewTimer call at line of file asks
// for, when it is a constant the source spells out (time.Millisecond, 5 * time.Second,
// time.Duration(3)); 0 otherwise. The runtime records a timer already due when set as 1 ns,
// which does not tell a late time.After(time.Millisecond) from a time.After(0).
func requestedTimer(file string, line int) time.Duration {
	key := fmt.Sprintf("%s:%d", file, line)
	requestedTimers.Lock()
	defer requestedTimers.Unlock()
	if d, ok := requestedTimers.at[key]; ok {
		return d
	}
	if requestedTimers.at == nil {
		requestedTimers.at = map[string]time.Duration{}
	}
	var d time.Duration
	fset := token.NewFileSet()
	if f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution); err == nil {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || d != 0 || fset.Position(call.Pos()).Line != line || len(call.Args) != 1 {
				return d == 0
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && isIdent(sel.X, "time") && (sel.Sel.Name == "After" || sel.Sel.Name == "NewTimer") {
				if v, ok := constDuration(call.Args[0]); ok && v > 0 {
					d = time.Duration(v)
				}
			}
			return true
		})
	}
	requestedTimers.at[key] = d
	return d
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// constDuration evaluates e when it is a product of integer or float literals and time's
// unit constants (time.Millisecond), or time.Duration of one.
func constDuration(e ast.Expr) (float64, bool) {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return constDuration(e.X)
	case *ast.BasicLit:
		if e.Kind == token.INT || e.Kind == token.FLOAT {
			v, err := strconv.ParseFloat(e.Value, 64)
			return v, err == nil
		}
	case *ast.SelectorExpr:
		if isIdent(e.X, "time") {
			units := map[string]time.Duration{"Nanosecond": time.Nanosecond, "Microsecond": time.Microsecond,
				"Millisecond": time.Millisecond, "Second": time.Second, "Minute": time.Minute, "Hour": time.Hour}
			if u, ok := units[e.Sel.Name]; ok {
				return float64(u), true
			}
		}
	case *ast.BinaryExpr:
		if e.Op == token.MUL {
			x, okx := constDuration(e.X)
			y, oky := constDuration(e.Y)
			return x * y, okx && oky
		}
	case *ast.CallExpr:
		if sel, ok := e.Fun.(*ast.SelectorExpr); ok && isIdent(sel.X, "time") && sel.Sel.Name == "Duration" && len(e.Args) == 1 {
			return constDuration(e.Args[0])
		}
	}
	return 0, false
}
