package campaign

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/goweave/goweave/fuzzer/run"
)

// Slow tests borrow time. -time (TimePerTest) is each test's share of the campaign; the runs
// still under way at the end of a test's share are stopped (runContext). A test's first run
// is not: without one finished run the campaign knows nothing of the test, and a big suite's
// slow tests (mock servers, retries, sleeps) would all end with "no run finished". The first
// run goes on to its own time limit (-timeout, or its slow cap), the time past the test's
// share borrowed from the campaign's loans; a test whose first run leaves no room in its
// share for another run of the same length borrows that too (a steered run, or the
// confirmation of what the first run predicted), unless that run was stopped at its cap,
// and only from what the loans keep beyond a share for each test not yet started: first
// runs come first. Tests that end before their share is spent (-runs, Config.Enough,
// failing in every run) give the rest back for others to borrow.
//
// The bound: the campaign lends at most tests × -time (at least one -timeout, so that a
// package of one slow test gets its run), so its runs take at most about twice
// tests × -time / -p (with the time the early tests leave unused) plus one -timeout, and
// the analyses of first runs, which always complete (not charged: settleFirst). When
// nothing is left to lend, a first run past its test's share is stopped as before and the
// test named (noRunFinished, Report.Unfinished); the loans, in all, are a warning and in
// Report.Budget and TestResult.Borrowed.

// loans is the campaign's time for slow tests. Runs' timers borrow from it (firstRun), so
// it has a lock of its own.
type loans struct {
	mu    sync.Mutex
	limit time.Duration // lendable at the start
	left  time.Duration // lendable now (negative: a stopped run outlived its loan while it was killed)
}

func newLoans(cfg Config, tests int) *loans {
	if cfg.TimePerTest <= 0 {
		return nil
	}
	limit := max(time.Duration(tests)*cfg.TimePerTest, cfg.RunTimeout)
	return &loans{limit: limit, left: limit}
}

// take lends up to want, as much as is left.
func (l *loans) take(want time.Duration) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	got := max(min(want, l.left), 0)
	l.left -= got
	return got
}

// takeAll lends want, or nothing when less is left.
func (l *loans) takeAll(want time.Duration) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if want > l.left {
		return false
	}
	l.left -= want
	return true
}

// give returns d (negative: overdraws).
func (l *loans) give(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.left += d
}

// firstRun is the loan of a test's first run: at the end of the test's share it borrows a
// -timeout (or what is left) at a time, and stops the run when nothing is left.
type firstRun struct {
	loans   *loans
	chunk   time.Duration
	stop    context.CancelFunc
	mu      sync.Mutex
	timer   *time.Timer
	granted time.Duration // borrowed so far
	over    bool          // the run ended: borrow no more
	unlent  bool          // stopped: nothing was left to lend
}

// lendFirst arranges the loan of a first run whose test's share ends at end; stop stops
// the run.
func (l *loans) lendFirst(end time.Time, chunk time.Duration, stop context.CancelFunc) *firstRun {
	f := &firstRun{loans: l, chunk: chunk, stop: stop}
	f.mu.Lock()
	f.timer = time.AfterFunc(time.Until(end), f.renew)
	f.mu.Unlock()
	return f
}

func (f *firstRun) renew() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.over {
		return
	}
	got := f.loans.take(f.chunk)
	if got <= 0 {
		f.unlent = true
		f.stop()
		return
	}
	f.granted += got
	f.timer = time.AfterFunc(got, f.renew)
}

// ended says the run's process ended: the loan stops growing (its analysis is paid at
// settle). It reports whether the run was stopped for want of a loan.
func (f *firstRun) ended() bool {
	if f == nil {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.over = true
	f.timer.Stop()
	return f.unlent
}

// settle pays the first run's loan: used is how long it went on past the test's share, its
// analysis included; the rest of what it borrowed goes back.
func (f *firstRun) settle(used time.Duration) {
	f.mu.Lock()
	granted := f.granted
	f.mu.Unlock()
	f.loans.give(granted - used)
}

// share is t's part of the campaign's time: -time and what it borrowed.
func (c *campaign) share(t *testState) time.Duration {
	return c.cfg.TimePerTest + t.borrowed
}

// shareEnd is when t's share of the campaign's time ends.
func (c *campaign) shareEnd(t *testState) time.Time {
	return t.budgetFrom.Add(c.share(t))
}

// runContext is the context of job j's run and its cancel: ended when its test's share
// ends, so that a campaign ends on time however long one run takes; a test's first run's
// ends when the campaign has nothing left to lend it (see above).
func (c *campaign) runContext(ctx context.Context, j *job) (context.Context, context.CancelFunc) {
	if c.cfg.TimePerTest <= 0 {
		return context.WithCancel(ctx)
	}
	j.shareEnd = c.shareEnd(j.test)
	if j.index == 1 && c.loans != nil {
		rctx, cancel := context.WithCancel(ctx)
		j.loan = c.loans.lendFirst(j.shareEnd, c.cfg.RunTimeout, cancel)
		j.campaignDone = ctx.Done()
		return rctx, cancel
	}
	return context.WithDeadline(ctx, j.shareEnd)
}

// settleFirst pays the loan of t's first run, whose process ended (or was stopped) at
// res.exited, and lends t another run's time when its share has no room for one. Its
// analysis is not charged: a first run's analysis always completes, as it did before runs
// borrowed (a warning says when it went past -time); on ants, charging it (a million
// operations, 50 s an analysis under load) left the later tests nothing to borrow.
func (c *campaign) settleFirst(t *testState, res jobResult) {
	if res.loan == nil {
		return
	}
	used := max(res.exited.Sub(res.shareEnd), 0)
	res.loan.settle(used)
	t.borrowed += used
	t.unlent = t.unlent || res.loan.unlent
	if res.run == nil || res.run.Canceled || res.run.Progressing || errors.Is(res.run.TraceErr, errFirstCut) {
		// A run stopped at its cap still making progress: another would take as long
		// (3 × -timeout) and end the same. (A stuck one gets its second run: two timeouts
		// tell a hang, worthReporting.) So would the analysis of one that reached its
		// bound (firstbound.go).
		return
	}
	perRun := res.run.Elapsed + res.inspected
	// (from the share's end: the time its analysis went past it is charged with the loan)
	if need := t.last.Add(perRun).Sub(c.shareEnd(t)); need > 0 && c.loans.takeAll(need+c.firstClaims()) {
		c.loans.give(c.firstClaims())
		t.borrowed += need
		t.costs.lent, t.costs.lentAt = true, t.started // runcost.go: not refused for want of room
	}
}

// firstClaims is what the loans keep for the first runs of the tests not yet started: a
// share each. A second run is lent only beyond it: on ants, with no such reserve, two
// heavy tests' second runs (a run and its analysis: 40 s each) spent the loans and three
// later tests were left with no finished run.
func (c *campaign) firstClaims() time.Duration {
	n := 0
	for _, t := range c.tests {
		if t.first.IsZero() && !t.done {
			n++
		}
	}
	return time.Duration(n) * c.cfg.TimePerTest
}

// later is the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// giveBack returns what t leaves of its share as it ends (all of it for a test that never
// started): a test that ended early lends its time to the slow ones.
func (c *campaign) giveBack(t *testState, now time.Time) {
	if c.loans == nil || t.done {
		return
	}
	unused := c.cfg.TimePerTest
	if !t.first.IsZero() {
		unused = c.shareEnd(t).Sub(now)
	}
	if unused <= 0 {
		return
	}
	back := min(unused, t.borrowed)
	t.borrowed -= back
	c.loans.give(unused)
}

// BudgetReport says how the campaign's time went to slow tests (see TestResult.Borrowed and
// Report.Unfinished).
type BudgetReport struct {
	PerTest float64 `json:"perTestSeconds"` // -time, each test's share
	// Lendable is what the slow tests could borrow past their shares, in all (tests × -time,
	// at least one -timeout; more as tests ending early gave theirs back); Borrowed what they
	// did, by Borrowers tests.
	Lendable  float64 `json:"lendableSeconds"`
	Borrowed  float64 `json:"borrowedSeconds"`
	Borrowers int     `json:"borrowers"`
}

// Unfinished is a test none of whose runs ended on its own: each was stopped, by the end of
// the campaign's time for it or at the time limit (-timeout). Its bugs are not known.
type Unfinished struct {
	Package string `json:"package"`
	Test    string `json:"test"`
	Why     string `json:"why"`
}

// budgetReport sums up the loans, nil without a time budget.
func (c *campaign) budgetReport() *BudgetReport {
	if c.loans == nil {
		return nil
	}
	r := &BudgetReport{PerTest: c.cfg.TimePerTest.Seconds(), Lendable: c.loans.limit.Seconds()}
	for _, t := range c.tests {
		if t.borrowed > 0 {
			r.Borrowed += t.borrowed.Seconds()
			r.Borrowers++
		}
	}
	return r
}

// loanWarning says how much time slow tests borrowed, naming the heaviest.
func (c *campaign) loanWarning() string {
	r := c.budgetReport()
	if r == nil || r.Borrowers == 0 {
		return ""
	}
	var slow []*testState
	for _, t := range c.tests {
		if t.borrowed > 0 {
			slow = append(slow, t)
		}
	}
	slices.SortStableFunc(slow, func(a, b *testState) int { return cmp.Compare(b.borrowed, a.borrowed) })
	var names []string
	for _, t := range slow[:min(len(slow), 5)] {
		names = append(names, fmt.Sprintf("%s.%s %s", t.bin.Package, t.name, shortDuration(t.borrowed)))
	}
	more := ""
	if len(slow) > 5 {
		more = fmt.Sprintf(", %d more", len(slow)-5)
	}
	return fmt.Sprintf("%s needed more than their share (-time %s): %s of the campaign's %s for slow tests went to them (%s%s), so the campaign took about %s more than tests × -time / -p; raise -time to give every test more",
		plural(r.Borrowers, "test"), c.cfg.TimePerTest, shortDuration(time.Duration(r.Borrowed*float64(time.Second))), shortDuration(c.loans.limit),
		strings.Join(names, ", "), more, shortDuration(time.Duration(r.Borrowed*float64(time.Second))/time.Duration(c.cfg.Parallel)))
}

// unfinished lists the tests with no run that ended on its own.
func (c *campaign) unfinished() []Unfinished {
	var out []Unfinished
	for _, t := range c.tests {
		if t.bin == nil || t.first.IsZero() {
			continue
		}
		timeouts := t.statuses[string(run.StatusTimeout)]
		var why string
		switch {
		case t.runs == 0 && t.cutShort > 0 && t.unlent:
			why = "its first run went on past its share of the time budget until the campaign had no more time to lend, and was stopped"
		case t.runs == 0 && t.cutShort > 0:
			why = "its runs were stopped unfinished by the end of its time budget"
		case t.runs > 0 && timeouts == t.runs:
			why = fmt.Sprintf("every run was stopped at the time limit (-timeout %s)", c.cfg.RunTimeout)
			if t.notes.capped > 0 {
				why = fmt.Sprintf("every run was stopped at the time limit (-timeout %s) or its cap (%s), %d of them still making progress", c.cfg.RunTimeout, t.notes.capLimit, t.notes.capped)
			}
		default:
			continue
		}
		out = append(out, Unfinished{Package: t.bin.Package, Test: t.name, Why: why})
	}
	return out
}
