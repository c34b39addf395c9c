package analysis

import "fmt"

var TestUsedAfterEnd = &Detector{
	Name: "t-used-after-test",
	Doc: `A use of a test's *testing.T (Log, Error, Fatal, Skip, Fail, ...) that the happens-before relation does not order before the end of the test.

Once a test has completed, t.Error and t.Fail panic ("Fail in goroutine after TestX has
completed"), and t.Log panics too once no parent test is running ("Log in goroutine after
TestX has completed"), or its output lands in another test's. A goroutine that reports
through t and that the test does not wait for works in most runs only because it is quick:
another schedule runs the use after the test returned, which fails the whole test binary.
Fix it by waiting for the goroutine before the test returns (a WaitGroup, a done channel,
or t.Cleanup that waits), or by reporting through a channel the test reads.`,
	Run: func(r *Result) []Finding {
		var out []Finding
		t := &r.facts.tests
		for k, p := range t.late {
			m := testMethod(r.Trace.Events[p.a].A)
			test := r.at(p.b)
			if t.after[k] {
				msg := fmt.Sprintf("t.%s at %s by %s ran after the test (at %s) had completed: it panics, or logs into another test",
					m, r.at(p.a), r.spawnedAt(p.a), test)
				out = append(out, r.newFinding("t-used-after-test", Actual, msg, op{"use", p.a}, op{"test", p.b}))
				continue
			}
			msg := fmt.Sprintf("t.%s at %s by %s is not ordered before the end of the test (at %s): in another schedule it runs after the test completed and panics (\"%s in goroutine after ... has completed\")",
				m, r.at(p.a), r.spawnedAt(p.a), test, panicWord(m))
			out = append(out, r.newFinding("t-used-after-test", Predicted, msg, op{"use", p.a}, op{"test", p.b}))
		}
		return out
	},
}

var FailNowOffTest = &Detector{
	Name: "failnow-off-test",
	Doc: `t.FailNow, t.Fatal, t.SkipNow or t.Skip called from a goroutine other than the test's.

These methods stop the test by calling runtime.Goexit, which ends only the goroutine that
calls them: called from a goroutine the test started, the test goes on (it may hang waiting
for the goroutine's result, or pass its remaining checks), and the failure may be reported
after the test completed, which panics. The testing package documents that they must be
called from the test's goroutine. Fix it by reporting with t.Error and returning from the
goroutine, or by sending the error to the test's goroutine and calling t.Fatal there.`,
	Run: func(r *Result) []Finding {
		var out []Finding
		for _, p := range r.facts.tests.offTest {
			m := testMethod(r.Trace.Events[p.a].A)
			msg := fmt.Sprintf("t.%s at %s is called by %s, not by the test's goroutine: it ends only that goroutine, and the test (at %s) goes on",
				m, r.at(p.a), r.spawnedAt(p.a), r.at(p.b))
			out = append(out, r.newFinding("failnow-off-test", Actual, msg, op{"call", p.a}, op{"test", p.b}))
		}
		return out
	},
}

// panicWord is the first word of the panic a late use of method m raises.
func panicWord(m string) string {
	switch m {
	case "Log", "Logf", "Skip", "Skipf":
		return "Log"
	}
	return "Fail"
}
