package campaign

import (
	"fmt"
	"slices"
	"strings"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer/run"
)

// The order of two operations behind a flaky failure (analysis/order_cause.go): each
// passing or failing run of a test leaves, per object, the order in which the module's
// lines reached it; a flaky panic or failure whose failing runs and the test's passing runs
// had two lines in opposite orders, by a split that chance does not explain, names the two
// lines in its message and among its positions. This replaces, once there are runs enough
// to tell (minOrderFailing failing ones and a passing one), the order difference of one
// failing run with the first passing run (orderdiff.go), which names whatever two lines
// happened to differ in that pair, related to the failure or not.

// maxOrderRuns bounds the runs of a test whose orders are kept, passing and failing each.
const maxOrderRuns = 500

// maxOrderCauses bounds the pairs of lines one finding names.
const maxOrderCauses = 2

// minOrderFailing is the fewest failing runs from which the statistics speak (as for the
// selects: analysis.SelectCauses's minimum).
const minOrderFailing = 4

// orderRuns is what a test's runs did in which order, by run index.
type orderRuns struct {
	lines      analysis.OrderLines
	pass, fail map[int]analysis.RunOrder
	failed     map[int]string         // the subtests each failing run failed, by run
	cached     map[string]cachedOrder // by fingerprint
}

type cachedOrder struct {
	pass, fail int // the runs they were computed from
	causes     []analysis.OrderCause
}

// noteOrder keeps the order of run ar's operations, a passing run or one that failed.
func (o *orderRuns) note(t *testState, ar *AnalyzedRun) {
	if ar.Recorded == nil || (ar.Status != run.StatusPass && ar.Status != run.StatusFail && ar.Status != run.StatusPanic) {
		return
	}
	if o.pass == nil {
		o.pass, o.fail, o.cached, o.failed = map[int]analysis.RunOrder{}, map[int]analysis.RunOrder{}, map[string]cachedOrder{}, map[int]string{}
	}
	m := o.fail
	if ar.Status == run.StatusPass {
		m = o.pass
	} else if timedOut(ar) {
		return
	}
	if len(m) >= maxOrderRuns {
		return
	}
	module := ""
	if t.bin != nil {
		module = t.bin.Module
	}
	if ar.Status != run.StatusPass {
		o.failed[ar.Index] = failedSubtests(ar.Output)
	}
	m[ar.Index] = o.lines.OrderOf(ar.Recorded, func(file string) bool {
		_, ok := below(module, file)
		return module == "" || ok
	})
}

// orderCauses returns the pairs of lines whose order tells the runs in which f happened
// from the passing runs of its test; enough reports whether there were runs enough to
// tell.
func (c *campaign) orderCauses(f Finding) (causes []analysis.OrderCause, enough bool) {
	if f.Kind != "flaky-failure" && f.Kind != "flaky-panic" {
		return nil, false
	}
	t := c.ranTest(f)
	if t == nil || t.seen[f.Fingerprint] == nil || t.choices.order.pass == nil {
		return nil, false
	}
	o := &t.choices.order
	happened := t.seen[f.Fingerprint].happened
	var failing, passing []analysis.RunOrder
	bySubtest := map[string][]analysis.RunOrder{}
	for i, r := range o.fail {
		if happened.has(i) {
			failing = append(failing, r)
			if k := o.failed[i]; k != "" {
				bySubtest[k] = append(bySubtest[k], r)
			}
		}
	}
	if len(failing) < minOrderFailing || len(o.pass) == 0 {
		return nil, false
	}
	if k, ok := o.cached[f.Fingerprint]; ok && k.pass == len(o.pass) && k.fail == len(failing) {
		return k.causes, true
	}
	for _, r := range o.pass {
		passing = append(passing, r)
	}
	causes = o.lines.OrderCauses(failing, passing)
	if len(causes) == 0 && len(bySubtest) > 1 {
		// failing runs that failed in different subtests may fail for different reasons (one
		// subtest's sleep, another's bug): each subtest's failing runs on their own
		keys := make([]string, 0, len(bySubtest))
		for k := range bySubtest {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if len(bySubtest[k]) < minOrderFailing {
				continue
			}
			for _, c := range o.lines.OrderCauses(bySubtest[k], passing) {
				c.Among = k
				causes = append(causes, c)
			}
		}
	}
	o.cached[f.Fingerprint] = cachedOrder{pass: len(passing), fail: len(failing), causes: causes}
	return causes, true
}

// failedSubtests names the subtests a run's output says failed ("--- FAIL: TestX/sub"), the
// innermost of each, joined; "" when none did.
func failedSubtests(output string) string {
	var out []string
	for _, l := range strings.Split(output, "\n") {
		l = strings.TrimSpace(l)
		name, ok := strings.CutPrefix(l, "--- FAIL: ")
		if !ok {
			continue
		}
		name, _, _ = strings.Cut(name, " (")
		if strings.Contains(name, "/") {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	// a parent fails with its subtest: keep the innermost
	kept := out[:0]
	for i, n := range out {
		if i+1 < len(out) && strings.HasPrefix(out[i+1], n+"/") {
			continue
		}
		kept = append(kept, n)
	}
	return strings.Join(kept, ", ")
}

// markOrderCause names in f, a grouped flaky panic or failure with cause finding cause,
// the orders its runs depend on: in the message, and as positions (at holds the positions
// f has, by file:line). With runs enough to tell, the one-pair order differences
// (orderdiff.go) give way to them, named or not.
func (c *campaign) markOrderCause(f *Finding, cause Finding, at map[string]bool) {
	defer c.markPlainFailed(f, cause)
	causes, enough := c.orderCauses(cause)
	if !enough {
		return
	}
	kept := f.Positions[:0:0]
	for _, p := range f.Positions {
		if isOrderDifference(p.Role) {
			delete(at, fmt.Sprintf("%s:%d", p.File, p.Line))
		} else {
			kept = append(kept, p)
		}
	}
	f.Positions = kept
	for _, oc := range causes[:min(len(causes), maxOrderCauses)] {
		msg, pos := oc.Describe()
		addCause(f, msg, pos, at)
	}
}

// timedOut reports whether failing run ar failed by the clock: its flaky failure or panic
// carries timing evidence (timing.go: a wait of the test's expired while goweave's schedule
// held a goroutine it waited for, or while that goroutine had not run yet). Such a run
// failed for the hold, not for an order of the program's: counted among the failing runs it
// dilutes the order that does decide (gocron: 14 of 43 failing runs were the schedule
// outlasting the test's 150 ms sleep, and the removal-before-request order, in about 60% of
// the failing runs, fell short of the half the rule asks for).
func timedOut(ar *AnalyzedRun) bool {
	for _, f := range ar.Findings {
		if (f.Kind == "flaky-failure" || f.Kind == "flaky-panic") && f.Timing != nil {
			return true
		}
	}
	return false
}
