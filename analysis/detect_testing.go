package analysis

import (
	"fmt"
	"maps"
	"slices"

	"github.com/goweave/goweave/analysis/trace"
)

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
goroutine, or by sending the error to the test's goroutine and calling t.Fatal there.
Also reported when the test never ended because of it (a goroutine started by a go
statement is never the test's): the WaitGroup Wait left blocked by the Done the goroutine
never ran is named in the message, not reported as a leak or deadlock of its own.`,
	Run: func(r *Result) []Finding {
		var out []Finding
		for _, p := range r.facts.tests.offTest {
			m := testMethod(r.Trace.Events[p.a].A)
			msg := fmt.Sprintf("t.%s at %s is called by %s, not by the test's goroutine: it ends only that goroutine, and the test (at %s) goes on",
				m, r.at(p.a), r.spawnedAt(p.a), r.at(p.b))
			out = append(out, r.newFinding("failnow-off-test", Actual, msg, op{"call", p.a}, op{"test", p.b}))
		}
		// A test that never ended (its run stuck or killed, often because of this very call:
		// the goroutine's Done or send never came) has no end to compare goroutines with;
		// a goroutine a go statement of the recorded code started is never a test's.
		t := &r.facts.tests
		tests := slices.Sorted(maps.Keys(t.pending))
		for _, test := range tests {
			for _, u := range t.pending[test] {
				info := r.goroutine(int(u))
				if !goexits(r.Trace.Events[u].A) || info == nil || info.Spawn < 0 || r.Trace.Events[info.Spawn].Pos == 0 {
					continue
				}
				msg := fmt.Sprintf("t.%s at %s is called by %s, not by the test's goroutine: it ends only that goroutine, and the test never finished",
					testMethod(r.Trace.Events[u].A), r.at(u), r.spawnedAt(u))
				for _, w := range r.waitsLeftBy(u) {
					msg += fmt.Sprintf("; %s at %s waits forever for the Done this goroutine never ran", r.operand(w, "wg")+".Wait()", r.at(w))
				}
				out = append(out, r.newFinding("failnow-off-test", Actual, msg, op{"call", u}))
			}
		}
		return out
	},
}

// waitsLeftBy returns the Waits blocked for good on a WaitGroup that the goroutine of
// FailNow-like use u Added to and, ended by u, never Done.
func (r *Result) waitsLeftBy(u int32) []int32 {
	g := r.gOf[u]
	open := map[uint64]int{}
	for i := range r.Trace.Events[:u] {
		e := &r.Trace.Events[i]
		if r.gOf[i] == g && (e.Kind == trace.KindWgAdd || e.Kind == trace.KindWgDone) {
			open[e.Obj] += int(int64(e.A))
		}
	}
	var out []int32
	for i := range r.Trace.Events {
		if e := &r.Trace.Events[i]; e.Kind == trace.KindWgWait && !e.Completed() && open[e.Obj] > 0 {
			out = append(out, int32(i))
		}
	}
	return out
}

// failNowLeft reports whether blocked Wait w waits for a Done that a goroutine ended by
// t.FailNow (or Fatal, SkipNow...) called off the test's goroutine never ran: that call
// is the finding (failnow-off-test, which names the Wait), not the Wait.
func (r *Result) failNowLeft(w int32) bool {
	for _, us := range r.facts.tests.pending {
		for _, u := range us {
			if goexits(r.Trace.Events[u].A) && slices.Contains(r.waitsLeftBy(u), w) {
				return true
			}
		}
	}
	return false
}

// panicWord is the first word of the panic a late use of method m raises.
func panicWord(m string) string {
	switch m {
	case "Log", "Logf", "Skip", "Skipf":
		return "Log"
	}
	return "Fail"
}
