package campaign

import (
	"fmt"
	"strings"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer/mutate"
	"github.com/goweave/goweave/fuzzer/run"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// The select behind a flaky failure (analysis/select_cause.go): each run of a test leaves
// what its selects chose among ready cases (AnalyzedRun.Choices); a flaky panic or failure
// whose failing runs and the test's passing runs chose differently at one select names that
// select in its message and among its positions.

// maxChoiceRuns bounds the runs of a test whose choices are kept, passing and failing each.
const maxChoiceRuns = 2000

// maxSelectCauses bounds the selects one finding names.
const maxSelectCauses = 2

// choiceRuns is what a test's runs chose, by run index.
type choiceRuns struct {
	pass, fail map[int]analysis.SelectChoices
	cached     map[string]cachedCauses // by fingerprint
	order      orderRuns               // the order of their operations (ordercause.go)
}

type cachedCauses struct {
	pass, fail int // the runs they were computed from
	causes     []analysis.SelectCause
}

// has reports whether s holds run i.
func (s runSet) has(i int) bool { return i/64 < len(s) && s[i/64]&(1<<(i%64)) != 0 }

// noteChoices keeps the choices of run ar, a passing run or one that failed.
func (t *testState) noteChoices(ar *AnalyzedRun) {
	if ar.Recorded == nil || (ar.Status != run.StatusPass && ar.Status != run.StatusFail && ar.Status != run.StatusPanic) {
		return
	}
	if t.choices.pass == nil {
		t.choices = choiceRuns{pass: map[int]analysis.SelectChoices{}, fail: map[int]analysis.SelectChoices{}, cached: map[string]cachedCauses{}}
	}
	m := t.choices.fail
	if ar.Status == run.StatusPass {
		m = t.choices.pass
	}
	if len(m) < maxChoiceRuns {
		m[ar.Index] = ar.Choices
	}
	t.choices.order.note(t, ar)
}

// selectCauses returns the selects whose choices tell the runs in which f happened from
// the passing runs of its test.
func (c *campaign) selectCauses(f Finding) []analysis.SelectCause {
	if f.Kind != "flaky-failure" && f.Kind != "flaky-panic" {
		return nil
	}
	t := c.ranTest(f)
	if t == nil || t.seen[f.Fingerprint] == nil || t.choices.pass == nil {
		return nil
	}
	happened := t.seen[f.Fingerprint].happened
	var failing, passing []analysis.SelectChoices
	for i, ch := range t.choices.fail {
		if happened.has(i) {
			failing = append(failing, ch)
		}
	}
	if k := t.choices.cached[f.Fingerprint]; k.pass == len(t.choices.pass) && k.fail == len(failing) {
		return k.causes
	}
	for _, ch := range t.choices.pass {
		passing = append(passing, ch)
	}
	causes := analysis.SelectCauses(failing, passing)
	t.choices.cached[f.Fingerprint] = cachedCauses{pass: len(passing), fail: len(failing), causes: causes}
	return causes
}

// pinnedChoices is sched, the schedule of steered run ar, as the recipe of f: for an actual
// finding, ar replayed whole, atomics included (mutate.PinRun), so that a replay follows ar
// past what sched steered; for a flaky panic or failure, first with the choices ar made
// among ready cases pinned where sched left them free (mutate.PinChoices). A predicted
// finding replays by its rewrites, and a confirmed one by the rewrite that confirmed it,
// which steers just what makes the bug happen (confirm.go writes it): a confirming run
// replayed whole diverged where the rest of the run depends on data (emitter's
// TestCancellation: 0 of 10 replays, 10 of 10 under the rewrite). (A free run's recipe, mutate.Replay, replays the run whole already.)
func pinnedChoices(sched []byte, f *Finding, ar *AnalyzedRun) []byte {
	if f.Confidence != analysis.Actual || ar.Recorded == nil || len(sched) == 0 {
		return sched
	}
	s, err := schedule.Unmarshal(sched)
	if err != nil {
		return sched
	}
	r := &mutate.Run{Trace: ar.Recorded, SelectPartners: map[int][]int{}}
	if f.Kind == "flaky-failure" || f.Kind == "flaky-panic" {
		mutate.PinChoices(s, r)
	}
	mutate.PinRun(s, r)
	if b, err := schedule.Marshal(s); err == nil {
		return b
	}
	return sched
}

// markSelectCause names in f, a grouped flaky panic or failure with cause finding cause, the
// selects whose random choice its runs depend on: in the message, and as positions (at
// holds the positions f has, by file:line).
func (c *campaign) markSelectCause(f *Finding, cause Finding, at map[string]bool) {
	causes := c.selectCauses(cause)
	for _, sc := range causes[:min(len(causes), maxSelectCauses)] {
		msg, pos := sc.Describe()
		addCause(f, msg, pos, at)
	}
	c.markOrderCause(f, cause, at)
}

// addCause appends one cause of f to its message (the first as "cause", the others as
// "also") and its positions that f does not have yet (at: f's positions by file:line).
func addCause(f *Finding, msg string, pos []analysis.Position, at map[string]bool) {
	sep := "; cause: "
	if strings.Contains(f.Message, sep) {
		sep = "; also: "
	}
	f.Message += sep + msg
	for _, p := range pos {
		if key := fmt.Sprintf("%s:%d", p.File, p.Line); !at[key] {
			at[key] = true
			f.Positions = append(f.Positions, p)
		}
	}
}
