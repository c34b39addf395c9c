package analysis

import "github.com/goweave/goweave/analysis/trace"

// Package testing (FORMAT.md TestUse, TestEnd): a test's T may be used only until the test
// completes; after that Log, Error, Fail and the rest panic ("Log in goroutine after TestX
// has completed"), and FailNow, SkipNow, Fatal and Skip end only the goroutine that called
// them. Neither event orders anything.
//
// Rule TestUse: a tick; the use is kept until its test's end is seen, or, when that end was
// already processed (the use completed after it), it is a use after the end that happened.
// Rule TestEnd: a tick; every kept use of the test that does not happen before the end (by
// the strong clock of the test's goroutine) is unordered with it: another schedule runs it
// after the end.

// testFacts are the uses of each test's T and their verdicts.
type testFacts struct {
	pending map[uint64][]int32 // test -> uses processed before its end
	ended   map[uint64]int32   // test -> its TestEnd
	late    []evPair           // use, end: unordered (happened is false) or after the end
	after   []bool             // per late: the use ran after the end in this run
	offTest []evPair           // FailNow/SkipNow-like use, end: on another goroutine than the test's
}

func init() {
	rules[trace.KindTestUse] = (*engine).testUse
	rules[trace.KindTestEnd] = (*engine).testEnd
}

func (e *engine) testUse(i int32, ev *trace.Event) {
	e.tick(i)
	t := &e.f.tests
	if end, ok := t.ended[ev.Obj]; ok {
		t.late = append(t.late, evPair{i, end})
		t.after = append(t.after, true)
		t.checkGoroutine(e, i, end)
		return
	}
	if t.pending == nil {
		t.pending = map[uint64][]int32{}
	}
	t.pending[ev.Obj] = append(t.pending[ev.Obj], i)
}

func (e *engine) testEnd(i int32, ev *trace.Event) {
	g := e.tick(i)
	t := &e.f.tests
	if t.ended == nil {
		t.ended = map[uint64]int32{}
	}
	t.ended[ev.Obj] = i
	for _, u := range t.pending[ev.Obj] {
		if !e.hbAt(u, g, false) {
			t.late = append(t.late, evPair{u, i})
			t.after = append(t.after, false)
		}
		t.checkGoroutine(e, u, i)
	}
	delete(t.pending, ev.Obj)
}

// checkGoroutine keeps use u when it is a method that ends its goroutine called on another
// goroutine than the test's (the one that ended it at end).
func (t *testFacts) checkGoroutine(e *engine, u, end int32) {
	if goexits(e.t.Events[u].A) && e.r.gOf[u] != e.r.gOf[end] {
		t.offTest = append(t.offTest, evPair{u, end})
	}
}

// The methods of a TestUse (FORMAT.md).
var testMethods = [...]string{1: "Log", "Logf", "Error", "Errorf", "Fatal", "Fatalf", "Skip", "Skipf", "SkipNow", "Fail", "FailNow"}

func testMethod(a uint64) string {
	if a < uint64(len(testMethods)) && testMethods[a] != "" {
		return testMethods[a]
	}
	return "a method"
}

// goexits reports whether method a calls runtime.Goexit (FailNow or SkipNow).
func goexits(a uint64) bool {
	switch testMethod(a) {
	case "Fatal", "Fatalf", "FailNow", "Skip", "Skipf", "SkipNow":
		return true
	}
	return false
}
