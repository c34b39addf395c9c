package analysis

import (
	"strings"

	"github.com/goweave/goweave/analysis/trace"
)

// emptySelectRule is the rule markEmptySelect applies, shown in leak-select's doc.
const emptySelectRule = `A goroutine blocked in an empty select (select {}) written in a _test.go file waits for
nothing: the test blocks it forever on purpose (a handler of the test's that never returns,
to see the package wait for it or time out). It is the test's leak (test-only), whoever
started the goroutine; a Wait for its Done follows it (waitChainRule).`

// markEmptySelect marks test-only the leaks in an empty select of a _test.go file
// (emptySelectRule).
func (r *Result) markEmptySelect(leaks []leak) {
	for k := range leaks {
		l := &leaks[k]
		ev := &r.Trace.Events[l.ev]
		if ev.Kind == trace.KindSelect && len(ev.Cases) == 0 && ev.Pos != 0 &&
			strings.HasSuffix(r.Trace.Position(ev.Pos).File, "_test.go") {
			l.testOnly, l.emptySelect = true, true
		}
	}
}
