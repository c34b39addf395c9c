package analysis

import "github.com/goweave/goweave/analysis/trace"

// Rule: a line the failure cut off is no evidence of an order. OrderCauses counts "x ran
// and y never did" as x before y in a failing run (a removal that ran while the queued run
// it dropped never came). But a failing run is summarized up to the test's first failing
// testing.T call, and a Fatal ends the test goroutine there: every line the test goroutine
// would have run after its failing assertion is missing from every failing run and present
// in every passing one, whatever made the test fail. Survey 11, go-quartz's
// TestScheduler_PauseResume (a count of a 10 ms trigger's runs after a 55 ms sleep): "the
// send at scheduler.go:774 came while the Lock at queue.go:185 had not run yet", 4 of 4
// failing runs and 0 of 11 passing, where queue.go:185 is PauseJob's lookup, which the test
// calls after the assertion that failed. So in a failing run cut by a failing call, y's
// absence counts only when no passing run ran y on a test's own goroutine (one that ended a
// test or called a testing.T method): a line of a goroutine the failure did not stop (the
// scheduler's loop, a worker) still counts as before.

// testGoroutines returns the goroutines of tr that ran a test (or a subtest): the ones
// with a TestEnd or a TestUse event.
func testGoroutines(tr *trace.Trace) map[uint64]bool {
	gs := map[uint64]bool{}
	for i := range tr.Events {
		if k := tr.Events[i].Kind; k == trace.KindTestEnd || k == trace.KindTestUse {
			gs[tr.Events[i].G] = true
		}
	}
	return gs
}

// testPathLines returns the lines some passing run ran on a test's goroutine.
func testPathLines(passing []RunOrder) bitset {
	var out bitset
	for _, r := range passing {
		r.testRan.each(out.add)
	}
	return out
}

// hasFailing is has for a failing run: y's absence is not counted when the run was cut by
// its failure and y is a line of a test's goroutine (testPath).
func (r RunOrder) hasFailing(x, y, xy uint32, ok bool, testPath bitset) bool {
	if ok && r.before.has(xy) {
		return true
	}
	return r.ran.has(x) && !r.ran.has(y) && !(r.cut && testPath.has(y))
}
