package campaign

import (
	"cmp"
	"slices"
	"time"
)

// Slow tests first. A campaign starts its tests one after another as process slots free
// up; in name order, the slowest tests of a big suite (a million tasks, seconds a run and a
// minute of analysis) may start last, and the whole campaign waits for their first runs
// and analyses at its end. Each test's first run is timed and saved with its state
// (savedTest.FirstRun, FirstExit); the next campaign starts the tests longest first (the
// longest-processing-time rule), by how long each is expected to hold its process slot: its
// share (-time), or its first run and analysis when they take longer. Tests with nothing
// saved count as a share. Ties keep name order, so a suite of fast tests, and any suite
// fuzzed for the first time, starts as before.
//
// Longest first would also let the slowest tests borrow first, and the loans (budget.go)
// are finite: on ants at -time 2s the slowest drained them and 9 tests a little over their
// share had no finished run, against 2 in name order. So the tests whose first runs the
// loans can pay are chosen first, those that need least first, as many as the loans
// cover; they start longest first, and the tests left over (each needing more than the
// loans have left) start after them, least need first, with whatever the others gave back.
//
// The times are a hint only: they are read from any saved state of the test (another
// build's, a changed binary's) and under -fresh too, since a start order changes no result.

// firstRunTime is how long t's first run held its slot: its process and analysis, or, for
// a first run stopped by the loans' end, how long it had gone on (at least that).
func firstRunTime(res jobResult) time.Duration {
	if res.run == nil {
		return 0
	}
	return res.run.Elapsed + res.inspected
}

// expectedTime is how long t is expected to hold a process slot in this campaign, known
// says whether an earlier campaign timed its first run.
func (c *campaign) expectedTime(t *testState) (d time.Duration, known bool) {
	d = t.savedFirstRun
	if c.cfg.TimePerTest > 0 {
		return max(c.cfg.TimePerTest, d), d > 0
	}
	return d, d > 0
}

// orderBySavedTimes sets each test's start rank (after readHints): the tests the loans
// can pay longest expected first, then name order; then the others, least need first.
// Without a time budget (-runs) there are no loans, and a test with nothing saved counts as
// the median of those timed.
func (c *campaign) orderBySavedTimes() {
	var timed []time.Duration
	for _, t := range c.tests {
		if d, ok := c.expectedTime(t); ok {
			timed = append(timed, d)
		}
	}
	unknown := c.cfg.TimePerTest
	if unknown <= 0 && len(timed) > 0 {
		slices.Sort(timed)
		unknown = timed[len(timed)/2]
	}
	expected := func(t *testState) time.Duration {
		if d, ok := c.expectedTime(t); ok {
			return d
		}
		return unknown
	}
	need := func(t *testState) time.Duration { return max(t.savedFirstExit-c.cfg.TimePerTest, 0) }
	paid := map[*testState]bool{}
	byNeed := slices.Clone(c.tests)
	slices.SortStableFunc(byNeed, func(a, b *testState) int { return cmp.Compare(need(a), need(b)) })
	left := time.Duration(1<<63 - 1)
	if c.cfg.TimePerTest > 0 {
		left = max(time.Duration(len(c.tests))*c.cfg.TimePerTest, c.cfg.RunTimeout) // newLoans
	}
	for _, t := range byNeed {
		if need(t) > left {
			break
		}
		left -= need(t)
		paid[t] = true
	}
	order := slices.Clone(c.tests)
	slices.SortStableFunc(order, func(a, b *testState) int {
		switch {
		case paid[a] != paid[b]:
			if paid[a] {
				return -1
			}
			return 1
		case !paid[a]:
			return cmp.Compare(need(a), need(b))
		}
		return cmp.Compare(expected(b), expected(a))
	})
	for i, t := range order {
		t.rank = i
	}
}
