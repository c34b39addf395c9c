package campaign

import (
	"fmt"
	"time"
)

// A run is worth starting only if it can be analyzed: a test whose runs are slow (100k
// iterations, millions of recorded operations) otherwise spends the end of its share on runs
// whose analysis the budget then cuts or never starts (a loop of 3 × 100k map operations,
// -time 45s: 1 of 3 runs analyzed, the other two cost 28 s for nothing). So a test starts
// another run only while its share has room for one more of its recent runs, process and
// analysis, with a quarter to spare; else it ends and gives the rest back (budget.go).

// recentCosts is how many of a test's latest analyzed runs its next run's cost is
// estimated from: the longest of them (a fast outlier must not let a slow run start late).
const recentCosts = 4

// runCosts holds what a test's latest analyzed runs took, process and analysis.
type runCosts struct {
	recent []time.Duration
	// unconfirmed: confirmation runs left queued when the share had no room for another
	// run of about perRun; the warning says so (a prediction stays unconfirmed).
	unconfirmed int
	perRun      time.Duration
	// lent: the campaign lent the test one more run's time after its first run
	// (settleFirst), when lentAt runs had started; that run may borrow what it lacks.
	lent   bool
	lentAt int
}

// note records the cost of one analyzed run.
func (r *runCosts) note(d time.Duration) {
	if len(r.recent) == recentCosts {
		r.recent = r.recent[1:]
	}
	r.recent = append(r.recent, d)
}

// next is what the test's next run is expected to take, with a quarter to spare (0: not
// known yet).
func (r *runCosts) next() time.Duration {
	var worst time.Duration
	for _, d := range r.recent {
		worst = max(worst, d)
	}
	return worst + worst/4
}

// noRoomForRun reports whether t's share ends before another of its runs, started at now,
// would have been analyzed.
func (c *campaign) noRoomForRun(t *testState, now time.Time) bool {
	if c.cfg.TimePerTest <= 0 || t.first.IsZero() {
		return false
	}
	cost := t.costs.next()
	if short := now.Add(cost).Sub(c.shareEnd(t)); short > 0 && cost > 0 && t.costs.lent && t.started == t.costs.lentAt && c.loans != nil &&
		c.loans.takeAll(short+c.firstClaims()) {
		// The run the campaign lent it after its first (budget.go) starts later than the
		// loan reckoned (the first run's finish, its schedules' derivation, came between):
		// it borrows the rest, as far as the loans go beyond the first runs' claims.
		c.loans.give(c.firstClaims())
		t.borrowed += short
	}
	if cost <= 0 || !now.Add(cost).After(c.shareEnd(t)) {
		t.costs.unconfirmed = 0 // (a loan may have made room again: budget.go)
		return false
	}
	t.costs.unconfirmed, t.costs.perRun = len(t.confirm), cost
	return true
}

// noRoomWarning says that t's confirmation runs did not start for want of time ("" when
// none was left so).
func (c *campaign) noRoomWarning(name string, t *testState) string {
	if t.costs.unconfirmed == 0 {
		return ""
	}
	return fmt.Sprintf("%s: %s not started: its share of the time budget (-time %s) had no room left for a run and its analysis (about %s each): a predicted finding may stay unconfirmed; raise -time",
		name, plural(t.costs.unconfirmed, "confirmation run"), c.cfg.TimePerTest, shortDuration(t.costs.perRun))
}
