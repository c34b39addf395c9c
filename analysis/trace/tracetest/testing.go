package tracetest

import "github.com/goweave/goweave/analysis/trace"

// Test returns a new test (*testing.T) object id.
func (b *Builder) Test() uint64 { return b.obj() }

// The methods of a TestUse (FORMAT.md).
const (
	TLog     = 1
	TErrorf  = 4
	TFatal   = 5
	TSkipNow = 9
	TFailNow = 11
)

// TestUse records a call of method on test's T at pos.
func (g *G) TestUse(test uint64, method uint64, pos string) *Op {
	return g.op(trace.KindTestUse, pos, trace.Event{Obj: test, A: method}, nil)
}

// TestEnd records the end of test, whose function starts at pos.
func (g *G) TestEnd(test uint64, pos string) *Op {
	return g.op(trace.KindTestEnd, pos, trace.Event{Obj: test}, nil)
}
