package campaign

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/build"
	"github.com/goweave/goweave/fuzzer/run"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// A campaign is one Fuzz or Record call: the built binaries, a state per test, and a
// dispatcher that keeps cfg.Parallel test processes busy. Each test has a queue of
// run requests its strategy proposed; when the queue is empty and the test's budget allows,
// the test runs free.
type campaign struct {
	cfg        Config             // defaults applied
	warnings   []string           // problems found while setting up (no race detector), for Report.Warnings
	dir        string             // this campaign's directory: traces/, recipes/, report.json
	analyze    bool               // run the analysis over each trace (Record does not)
	keepTraces bool               // keep every trace, not only those that show a finding
	onRun      func(*AnalyzedRun) // called for every finished run, from the dispatcher
	progress   func(Progress)

	tests      []*testState
	findings   map[string]*Finding     // by fingerprint
	recipes    map[string]*recipeParts // by fingerprint: what the finding's recipe replays
	confirming map[string]string       // confirmation request key -> fingerprint
	keepFiles  map[string]bool         // schedules that confirmed a finding
	byPrimary  map[string]*Finding     // by kind and primary line, see merge
	traceRefs  map[string]int          // findings that point at each trace
	binHashes  map[string]string       // test binary path -> sha256 (see binaryHash)
	runs       int                     // runs finished, all tests together (TestResult.Runs summed)
	cut        int                     // runs stopped unfinished by the end of their test's time budget
	start      time.Time               // before the overlay check and the build
	oneEnded   bool                    // a test has ended: the tests started since did not wait for the build
	plain      *plainChecks            // plain go test checks of tests failing unsteered (plain.go); nil: none
	pkgs       map[string]*pkgRuns     // by package: runs in flight, serialised (collide.go)
	lone       bool                    // failures of overlapped runs wait for a lone one (overlap.go): Fuzz only
	loans      *loans                  // the time slow tests may borrow (budget.go); nil: no time budget
}

type testState struct {
	bin             *build.TestBinary
	name            string
	strategy        Strategy
	queue           []*RunRequest
	turn            string        // latest strategy other than the favoured one run from the queue
	favouredLast    bool          // the latest queued request run was the favoured strategy's
	confirm         []*RunRequest // confirmation runs of predicted findings, before the queue
	confirmations   int           // predicted findings whose confirmation was queued
	started         int           // runs started; the next run's index is started+1
	inflight        int
	first           time.Time             // when the first run started
	budgetFrom      time.Time             // when its time budget started: first, or earlier (budgetStart)
	cutShort        int                   // runs stopped unfinished (the time budget's end, a cancel)
	notes           testNotes             // what the warnings say of its runs (notes.go)
	slowestPass     time.Duration         // longest passing run, earlier campaigns included (slowLimit)
	overBudget      *analysis.BudgetError // the first run whose analysis passed its memory budget
	overBudgetRuns  int                   // runs whose analysis did
	cuts            traceCuts             // runs whose recorder lost events (tracecut.go)
	borrowed        time.Duration         // its share of the campaign's time past -time (budget.go)
	unlent          bool                  // its first run was stopped: nothing was left to lend (budget.go)
	last            time.Time             // when the latest run finished
	costs           runCosts              // what its latest analyzed runs took (runcost.go)
	worst           run.Status
	runs            int
	signatures      map[string]bool
	statuses        map[string]int
	steered         int
	found           []*Finding
	seen            map[string]*seenRuns // by fingerprint: the runs that showed the finding
	passingOrder    lineOrder            // the operations' order in its first passing run (orderdiff.go)
	choices         choiceRuns           // what its runs' selects chose (selectcause.go)
	failRuns        int                  // runs that failed as a test (failingRun, broken.go)
	silent          silentRuns           // failing runs no finding came from (silentruns.go)
	failure         *TestFailure         // the first of them
	unsteeredFailed bool                 // one of them ran under no schedule
	plain           *plainCheck          // its plain go test check (plain.go)
	order           runOrder             // its runs' outcomes in time (leftstate.go)
	leftBefore      bool                 // an earlier campaign found it failing for state left behind (leftstate.go)
	discarded       int                  // failing runs not counted: they overlapped another process of the package (overlap.go)
	// From the saved state of earlier campaigns (state.go).
	earlierRuns, earlierCampaigns int
	seenBefore                    map[string]bool // interleavings seen by earlier campaigns
	enough                        bool            // Config.Enough said so
	done                          bool
	announced                     bool // its end was reported in Progress.Ended
}

type job struct {
	test      *testState
	index     int
	request   *RunRequest
	slowLimit time.Duration // how long the run may go on while making progress (slowLimit)
	// perEvent is what reading and analyzing one event of a trace of the test took so far
	// (0: not known yet): a later run whose analysis would not end within the test's time
	// budget is not analyzed (wouldOverrun).
	perEvent time.Duration
	// overlapped: another process of the package ran when it started; pkgStarted: the
	// package's runs started by then, itself included (collide.go).
	overlapped bool
	pkgStarted int
	rerunOf    int // a lone rerun of this discarded run of the test (overlap.go); 0: none
	// shareEnd is when its test's share of the campaign's time ends (zero: no time
	// budget); loan, for a test's first run, what it borrows past it (budget.go).
	shareEnd     time.Time
	loan         *firstRun
	campaignDone <-chan struct{} // with loan: the campaign's context's Done
	began        time.Time       // when it was started (leftstate.go)
}

type jobResult struct {
	job
	run *AnalyzedRun
	err error
	// inspected is how long reading and analyzing the run's trace took (0: not done, or
	// cut short); late, for a test's first run, how long that went on past the end of the
	// test's time budget (its analysis is never cut).
	inspected, late time.Duration
	// exited is when the run's process ended (zero: it did not start).
	exited time.Time
}

// statusRank orders statuses from benign to severe, for TestResult.Status.
var statusRank = map[run.Status]int{run.StatusPass: 0, run.StatusSkip: 1, run.StatusFail: 2, run.StatusTimeout: 3, run.StatusDeadlock: 4, run.StatusPanic: 5, run.StatusCrash: 6}

func (c *campaign) canStart(t *testState, now time.Time) bool {
	switch {
	case t.done:
		return false
	case c.timeSpent(t, now):
		return false // confirmations too: the time budget holds for all a test's work
	case c.noRoomForRun(t, now):
		return false // it would not be analyzed before its share ends (runcost.go)
	case t.broken():
		return false // it fails whatever the schedule, or waits for its plain check (broken.go)
	case t.leftState():
		return false // it fails for what its first runs left behind: so will the next (leftstate.go)
	case len(t.confirm) > 0:
		return true // bounded (confirmAttempts per finding), and worth it whatever the run budget
	case t.enough:
		return false
	case t.runs == 0 && t.inflight > 0 && len(t.queue) == 0 && t.strategy != nil && t.strategy.Name() != "record":
		// The first run's analysis yields the schedules worth running; a second free run
		// started beside it would mostly repeat it. (A queue restored from a saved state
		// has schedules already.)
		return false
	case c.cfg.RunsPerTest > 0 && t.started >= c.cfg.RunsPerTest:
		return false
	}
	return true
}

// timeSpent reports whether t's time budget is used up.
func (c *campaign) timeSpent(t *testState, now time.Time) bool {
	return c.cfg.TimePerTest > 0 && !t.first.IsZero() && now.Sub(t.budgetFrom) >= c.share(t)
}

// noRunFinished notes each test whose runs were all stopped unfinished by the end of its
// time budget: the campaign has nothing of it, not even a status.
func (c *campaign) noRunFinished() []string {
	var notes []string
	for _, t := range c.tests {
		if t.runs > 0 || t.cutShort == 0 || c.cfg.TimePerTest <= 0 {
			continue
		}
		build := ""
		if d := t.first.Sub(t.budgetFrom); d >= time.Second {
			build = fmt.Sprintf(", %s of it spent building", d.Round(time.Second))
		}
		if t.unlent {
			notes = append(notes, fmt.Sprintf("%s.%s: no run finished: its first run went on past its time budget (-time %s) until the campaign's time for slow tests (%s, tests × -time) was spent, and was stopped after %s; rerun it alone or with a larger -time",
				t.bin.Package, t.name, c.cfg.TimePerTest, shortDuration(c.loans.limit), shortDuration(t.notes.cutLongest)))
			continue
		}
		notes = append(notes, fmt.Sprintf("%s.%s: no run finished within its time budget (%s%s): its runs were stopped unfinished; rerun with a larger -time",
			t.bin.Package, t.name, c.cfg.TimePerTest, build))
	}
	return notes
}

// ended marks t done: it starts no more runs.
func (c *campaign) ended(t *testState) {
	c.giveBack(t, time.Now())
	t.done, c.oneEnded, t.order.passTrace = true, true, nil // (leftstate.go: no replay will run)
}

// budgetStart is when a test whose first run starts now begins to spend its time budget.
// The tests that start before any test has ended also pay for the campaign's preparation
// (overlay check, build), up to half their budget: `-time 10s` on a package of one test is
// then what the user times, about ten seconds from the command's start, build included,
// while a cold build (a minute and more) still leaves each of those tests half its budget.
func (c *campaign) budgetStart(now time.Time) time.Time {
	if c.cfg.TimePerTest <= 0 || c.oneEnded || c.start.IsZero() {
		return now
	}
	if earliest := now.Add(-c.cfg.TimePerTest / 2); c.start.Before(earliest) {
		return earliest
	}
	return c.start
}

// nextJob picks the test of the next run. Up to Parallel tests are under way at once, each
// from its first run until its budget is spent, so a campaign takes about
// tests × TimePerTest / Parallel; with fewer tests than process slots, the slots go to
// the tests under way, the one with fewest runs in flight first.
func (c *campaign) nextJob(now time.Time) (job, bool) {
	c.creditPlainWaits()
	c.beginProbes()
	var next, least *testState
	active := 0
	for _, t := range c.tests {
		started := !t.first.IsZero()
		if !c.canStart(t, now) {
			if t.inflight == 0 && !t.plainPending() { // (a test waiting for its plain check may resume)
				c.ended(t)
			}
			if started && !t.done {
				active++
			}
			continue
		}
		if c.serialBlocked(t, now) {
			// its package's runs go one at a time (collide.go): it waits, it has not ended
			if started {
				active++
			}
			continue
		}
		if !started {
			if next == nil {
				next = t
			}
			continue
		}
		active++
		// fewest in flight, then fewest started: tests of a serialised package (collide.go)
		// take turns
		if least == nil || t.inflight < least.inflight || (t.inflight == least.inflight && t.started < least.started) {
			least = t
		}
	}
	pick := least
	if next != nil && (least == nil || active < c.cfg.Parallel) {
		pick = next
	}
	if pick == nil {
		return job{}, false
	}
	if pick.first.IsZero() {
		pick.first, pick.budgetFrom = now, c.budgetStart(now)
	}
	pick.started++
	pick.inflight++
	j := job{test: pick, index: pick.started, slowLimit: c.slowLimit(pick), perEvent: pick.notes.perEvent(), began: now}
	if r := c.takeRerun(pick); r != nil {
		j.request, j.rerunOf = r.req, r.of
	} else if len(pick.confirm) > 0 {
		j.request, pick.confirm = pick.confirm[0], pick.confirm[1:]
	} else if len(pick.queue) > 0 && !pick.wantsUnsteered() {
		j.request = pick.takeRequest()
	}
	c.startPkgRun(&j)
	return j, true
}

// takeRequest removes and returns the next queued request. Strategies take turns, each
// with its own proposals oldest first, so one strategy's long list (and its runs' proposals)
// does not push back the first proposals of the others: under auto, each strategy's k-th
// schedule runs within a few k runs. The favoured strategy (the test strategy's choice,
// see steeringStrategy.favouredStrategy; flow by default) takes every other turn and the
// others rotate by name in between. With one strategy this is the queue's order.
func (t *testState) takeRequest() *RunRequest {
	favouredStrategy := defaultFavoured
	if f, ok := t.strategy.(interface{ favouredStrategy() string }); ok && f.favouredStrategy() != "" {
		favouredStrategy = f.favouredStrategy()
	}
	first := map[string]int{}
	for i, r := range t.queue {
		if _, ok := first[r.Strategy]; !ok {
			first[r.Strategy] = i
		}
	}
	_, favoured := first[favouredStrategy]
	var pick string
	if favoured && (!t.favouredLast || len(first) == 1) {
		pick = favouredStrategy
	} else {
		delete(first, favouredStrategy)
		for s := range first {
			switch {
			case pick == "":
				pick = s
			case (s > t.turn) != (pick > t.turn):
				if s > t.turn {
					pick = s
				}
			case s < pick:
				pick = s
			}
		}
		t.turn = pick
	}
	t.favouredLast = pick == favouredStrategy
	i := first[pick]
	r := t.queue[i]
	t.queue = slices.Delete(t.queue, i, i+1)
	return r
}

// defaultFavoured gets every other queued run under auto unless the test's strategy
// favours another (see favour).
const defaultFavoured = "flow"

// loop runs the campaign until every test's budget is spent or ctx is cancelled.
func (c *campaign) loop(ctx context.Context) {
	results := make(chan jobResult)
	inflight := 0
	for {
		for inflight < c.cfg.Parallel && ctx.Err() == nil {
			j, ok := c.nextJob(time.Now())
			if !ok {
				break
			}
			inflight++
			runCtx, cancel := c.runContext(ctx, &j)
			go func() {
				res := c.execute(runCtx, j)
				cancel()
				results <- res
			}()
			if j.index == 1 {
				// A test's first run can take long: say what is being fuzzed now.
				c.report(Progress{Package: j.test.bin.Package, Test: j.test.name, Started: true})
			}
		}
		if inflight == 0 && (ctx.Err() != nil || !c.anyPlainPending()) {
			break
		}
		select {
		case res := <-results:
			inflight--
			c.finish(res)
		case <-c.plainEnded():
			// a test that waited for its plain check may resume (plain.go)
		}
	}
	for _, t := range c.tests {
		t.done = true
	}
	c.report(Progress{Done: true})
}

// execute runs one job and reads and analyzes its trace. It runs concurrently with other
// jobs and touches no campaign state.
func (c *campaign) execute(ctx context.Context, j job) jobResult {
	t := j.test
	base := filepath.Join(filepath.FromSlash(t.bin.Package), t.name, fmt.Sprintf("run-%06d", j.index))
	opts := run.Options{Trace: filepath.Join(c.dir, "traces", base+".trace"), Timeout: c.cfg.RunTimeout, SlowLimit: j.slowLimit}
	if j.request != nil {
		opts.Schedule = filepath.Join(c.dir, "recipes", base+".schedule")
		if err := os.MkdirAll(filepath.Dir(opts.Schedule), 0o755); err != nil {
			return jobResult{job: j, err: err}
		}
		if err := os.WriteFile(opts.Schedule, j.request.Recipe, 0o644); err != nil {
			return jobResult{job: j, err: err}
		}
	}
	r, err := run.Test(ctx, t.bin, t.name, opts)
	j.loan.ended() // its analysis is not stopped for want of a loan
	exited := time.Now()
	if err != nil {
		return jobResult{job: j, err: err, exited: exited}
	}
	if r.Canceled {
		return jobResult{job: j, run: &AnalyzedRun{Run: r, Index: j.index, Request: j.request}, exited: exited}
	}
	deadline, budgeted := j.shareEnd, !j.shareEnd.IsZero()
	if j.index > 1 && budgeted && r.Trace != "" && c.analyze {
		if err := wouldOverrun(r.Trace, j.perEvent, time.Until(deadline)); err != nil {
			return jobResult{job: j, run: &AnalyzedRun{Run: r, Index: j.index, Request: j.request, TraceErr: err}, exited: exited}
		}
	}
	// Reading and analyzing the trace of a long run can take longer than what is left of
	// the time budget: when the budget ends first, the run counts without its analysis
	// (which finishes unseen, on its own copy of the run). The first run of a test is
	// analyzed past the budget, up to its bound (firstbound.go): without it the campaign
	// would know nothing of the test.
	rc := *r
	began := time.Now()
	done := ctx.Done()
	if j.loan != nil {
		done = j.campaignDone // the loan stopped its process at most, not its analysis
	}
	inspected := make(chan *AnalyzedRun, 1)
	stop := make(chan struct{})
	analyze := analyzeTrace // read here: the analysis may end unseen after the campaign
	go func() {
		inspected <- inspect(t.bin, t.name, j.index, j.request, &rc, c.analyze, c.cfg.AnalysisMemory, stop, analyze)
	}()
	var bound <-chan time.Time // a first run's analysis ends at its bound (firstbound.go)
	if j.index == 1 && budgeted {
		tm := time.NewTimer(time.Until(later(deadline, began).Add(c.firstAnalysisBound())))
		defer tm.Stop()
		bound = tm.C
	}
	select {
	case <-bound:
		close(stop)
		dropUnseen(inspected)
		late := time.Since(later(deadline, began))
		return jobResult{job: j, run: &AnalyzedRun{Run: r, Index: j.index, Request: j.request, TraceErr: firstCut(late, began)}, late: late, exited: exited}
	case ar := <-inspected:
		res := jobResult{job: j, run: ar, inspected: time.Since(began), exited: exited}
		if j.index == 1 && budgeted && time.Now().After(deadline) {
			res.late = time.Since(later(deadline, began)) // a first run that borrowed (budget.go): its analysis
		}
		return res
	case <-done:
		close(stop) // the analysis ends at once instead of holding its CPU and memory unseen
		dropUnseen(inspected)
		return jobResult{job: j, run: &AnalyzedRun{Run: r, Index: j.index, Request: j.request, TraceErr: errCutShort}, exited: exited}
	}
}

// errCutShort is the TraceErr of a run whose analysis the time budget cut short.
var errCutShort = errors.New("the time budget ended during the analysis of this run")

// Inspect reads and, if analyze, analyzes the trace of run r, the index-th run of test
// (made under req, nil for a free run), within the analysis memory budget memory (0: the
// default, negative: none; see Config.AnalysisMemory). Past the budget, TraceErr is the
// *analysis.BudgetError and the run has no analysis.
func Inspect(bin *build.TestBinary, test string, index int, req *RunRequest, r *run.Run, analyze bool, memory int64) *AnalyzedRun {
	ar := inspect(bin, test, index, req, r, analyze, memory, nil, analyzeTrace)
	ar.release() // the caller keeps the run as long as it likes: no longer reserved
	return ar
}

// inspect is Inspect with the analysis analyzeFn, which a close of stop ends early
// (analysis.ErrStopped).
func inspect(bin *build.TestBinary, test string, index int, req *RunRequest, r *run.Run, analyze bool, memory int64, stop <-chan struct{},
	analyzeFn func(*trace.Trace, analysis.Options) (*analysis.Result, error)) *AnalyzedRun {
	ar := &AnalyzedRun{Run: r, Index: index, Request: req, memory: budgetBytes(memory)}
	strategy := "record"
	if req != nil {
		strategy = req.Strategy
	}
	found := func(fs []analysis.Finding) {
		for _, f := range fs {
			f.Package, f.Test = bin.Package, test
			ff := Finding{Finding: f, ID: findingID(f.Fingerprint), Run: index, Strategy: strategy, Trace: r.Trace}
			if req != nil {
				ff.Replay = r.Schedule
			}
			ar.Findings = append(ar.Findings, ff)
		}
	}
	var hang []analysis.Finding
	var tr *trace.Trace
	if analyze {
		// At the end, with the trace when it could be read: it names the atomic side of a
		// race the race detector's stack does not (race.go, mixedRace). A race no finding
		// places is not left silent (unplaced.go).
		defer func() { found(raceFindings(r.Races, bin.Module, tr)); found(unplacedRace(bin, test, r, ar.Findings)) }()
		outcome := outcomeFindings(bin, test, r)
		if r.Progressing {
			// Stopped while still making progress: a hang only if the analysis proves
			// goroutines stuck (provenStuck).
			hang, outcome = outcome, nil
		}
		found(outcome)
	}
	if r.Trace == "" {
		ar.TraceErr = fmt.Errorf("the test process wrote no trace (built without the goweave runtime?)")
		return ar
	}
	opts := analysis.Options{Run: fmt.Sprintf("%s.%s run %d", bin.Package, test, index), MemoryBudget: memory, Stop: stop, Test: test, Dir: bin.Dir}
	limit := 0 // events read: all, or the first that fit the memory budget
	if analyze {
		var err error
		if limit, err = prefixWithin(r.Trace, opts); err != nil {
			ar.TraceErr = err
			return ar
		}
		// The whole inspection (decoding, analysis, signature) and what the campaign
		// derives from it hold their share of the process's analysis budget until the
		// campaign drops the run (memory_inspect.go, memory_hold.go).
		ar.holdInspection(reserveInspect(r.Trace, opts))
		opts.Reserved = true
	}
	read, err := trace.ReadFilePrefix(r.Trace, limit)
	if err != nil {
		ar.TraceErr = err
		return ar
	}
	tr = read
	ar.Recorded = tr
	ar.Events = len(tr.Events)
	ar.Steered = req != nil && schedule.ReadOutcome(tr.Meta).Steered
	r.Status = refineStatus(r.Status, tr.Meta)
	if analyze {
		ar.Choices = analysis.SelectChoicesOf(tr)
		res, err := analyzeFn(tr, opts)
		if be, ok := errors.AsType[*analysis.BudgetError](err); ok && limit == 0 {
			if n := retryPrefix(be, len(tr.Events)); n > 0 {
				// Past the budget midway: once more on a prefix (analyze.go); the whole
				// run stays the run's when that fails too.
				if short, rerr := trace.ReadFilePrefix(r.Trace, n); rerr == nil {
					if res2, err2 := analyzeFn(short, opts); err2 == nil {
						res, err = res2, nil
						tr, ar.Recorded, ar.Events = short, short, len(short.Events)
						ar.Choices = analysis.SelectChoicesOf(tr)
					}
				}
			}
		}
		if err != nil {
			if _, ok := errors.AsType[*analysis.BudgetError](err); !ok {
				err = fmt.Errorf("analyzing %s: %w", r.Trace, err)
			}
			ar.TraceErr = err
		} else {
			ar.Analysis = res
			found(res.Findings)
			if provenStuck(res.Findings) {
				found(hang)
			}
		}
	}
	attachTiming(ar, tr) // after the analysis: a deadlock's may be the clock's too
	select {
	case <-stop:
		return ar // cut: the run counts without its analysis, its signature is not needed
	default:
	}
	ar.Signature = signatureWithin(tr, ar.memory) // after the findings: on a large run it takes seconds too
	return ar
}

// refineStatus uses how the recorder saw the process end, where the output was ambiguous.
func refineStatus(s run.Status, meta map[string]string) run.Status {
	if s != run.StatusCrash {
		return s
	}
	switch meta["exit"] {
	case "deadlock":
		return run.StatusDeadlock
	case "panic":
		return run.StatusPanic
	}
	return s
}

func findingID(fingerprint string) string {
	sum := sha256.Sum256([]byte(fingerprint))
	return fmt.Sprintf("GW%x", sum[:5])
}

// finish merges one finished run into the campaign: statuses, coverage, findings (the
// lowest run of a test that found a fingerprint keeps it), the strategy's next run requests.
func (c *campaign) finish(res jobResult) {
	defer res.drop()
	t := res.test
	t.inflight--
	t.last = time.Now()
	c.settleFirst(t, res)
	if c.endPkgRun(res) {
		// It failed while another process of its package ran, before any run of the
		// package failed alone, or on a fixed resource: not a result of the test. It runs
		// again, now that the package's runs are serial.
		c.discard(t, res)
		return
	}
	if res.err != nil {
		c.ended(t) // cannot run this test at all: do not retry it forever
		t.worst = run.StatusCrash
		c.log(t, res.job, RunLog{Err: res.err})
		c.report(Progress{Package: t.bin.Package, Test: t.name})
		return
	}
	ar := res.run
	if ar.Canceled {
		if j := res.job; j.request != nil && j.request.Strategy != "confirm" {
			t.queue = append([]*RunRequest{j.request}, t.queue...) // not run: a later campaign may
		}
		// Killed because the campaign was cancelled: not a result of the test.
		t.cutShort++
		c.cut++
		t.notes.cut(res)
		if ar.Trace != "" && !c.keepTraces {
			os.Remove(ar.Trace)
		}
		return
	}
	t.runs++
	c.runs++
	t.notes.finished(res, c.analyze)
	if ar.TraceErr == nil && res.inspected > 0 {
		t.costs.note(ar.Elapsed + res.inspected)
	}
	if ar.Status == run.StatusPass {
		t.slowestPass = max(t.slowestPass, ar.Elapsed)
	}
	if statusRank[ar.Status] >= statusRank[t.worst] {
		t.worst = ar.Status
	}
	t.statuses[string(ar.Status)]++
	t.noteFailure(ar)
	t.noteOrder(res)
	c.checkPlain(t, false)
	t.noteSeen(ar.Findings, ar.Index)
	t.noteChoices(ar)
	entry := RunLog{Status: ar.Status, Steered: ar.Steered, Err: ar.TraceErr}
	entry.TraceCut = t.cuts.note(ar)
	if be, ok := errors.AsType[*analysis.BudgetError](ar.TraceErr); ok {
		c.overBudget(t, be)
	}
	if ar.Signature != "" {
		entry.NewSignature = !t.signatures[ar.Signature] && !t.seenBefore[ar.Signature]
		t.signatures[ar.Signature] = true
	}
	if ar.Steered {
		t.steered++
	}
	entry.Clock = clockNote(ar)
	confirmed := c.confirmRun(t, ar)
	// Trace findings first: a race-detector finding of the same bug then adds nothing.
	for _, fromRaces := range []bool{false, true} {
		for i := range ar.Findings {
			f := &ar.Findings[i]
			if isRaceFinding(f) != fromRaces {
				continue
			}
			if confirmed != nil && f.Kind == confirmed.Kind && primaryKey(f) == primaryKey(confirmed) {
				// The confirmation of a predicted finding is that finding: it happened here.
				t.noteSeen([]Finding{{Finding: analysis.Finding{Fingerprint: confirmed.Fingerprint, Confidence: f.Confidence}}}, ar.Index)
				continue
			}
			if stored, isNew := c.merge(t, f); stored != nil {
				if isNew {
					t.noteOrderDifferences(stored, ar)
				}
				c.noteRecipe(t, ar, stored, isNew)
				if isNew {
					entry.New = append(entry.New, *stored)
				}
			}
		}
	}
	if ar.Status == run.StatusPass && t.passingOrder == nil && ar.Recorded != nil {
		t.passingOrder = orderOf(ar.Recorded)
	}
	if !c.keepTraces && c.traceRefs[ar.Trace] == 0 && ar.Trace != "" {
		os.Remove(ar.Trace)
		if ar.Schedule != "" && !c.keepFiles[ar.Schedule] {
			os.Remove(ar.Schedule) // no finding replays it
		}
	}
	if c.onRun != nil {
		c.onRun(ar)
	}
	c.log(t, res.job, entry)
	if !c.timeSpent(t, time.Now()) {
		// Past the budget no run will start: the strategy's proposals (on a run of a
		// million operations, seconds of work) would only wait for the next campaign.
		if c.cfg.TimePerTest > 0 {
			ar.Deadline = t.budgetFrom.Add(c.cfg.TimePerTest)
		}
		t.queue = boundQueue(append(t.queue, t.strategy.Mutate(ar)...))
	}
	ar.dropTrace()
	if c.cfg.Enough != nil && c.cfg.Enough(TestID{Package: t.bin.Package, Dir: t.bin.Dir, Test: t.name}, c.grouped(derefAll(t.found))) {
		t.enough = true
	}
	if t.inflight == 0 && !t.plainPending() && !c.canStart(t, time.Now()) {
		c.ended(t)
	}
	c.report(Progress{Package: t.bin.Package, Test: t.name})
}

// overBudget notes a run of t whose analysis passed its memory budget: the first one is
// reported, the others counted.
func (c *campaign) overBudget(t *testState, be *analysis.BudgetError) {
	if t.overBudget == nil {
		t.overBudget = be
	}
	t.overBudgetRuns++
}

// log completes entry with the run's identity and passes it to Config.Log.
func (c *campaign) log(t *testState, j job, entry RunLog) {
	if c.cfg.Log == nil {
		return
	}
	entry.Test = TestID{Package: t.bin.Package, Dir: t.bin.Dir, Test: t.name}
	entry.Run, entry.Strategy = j.index, "record"
	if j.request != nil {
		entry.Strategy, entry.Note = j.request.Strategy, j.request.Note
	}
	c.cfg.Log(entry)
}

// merge adds a finding of a run of t, unless the campaign has it already from an earlier
// run. The race detector and the trace can both see a send racing a close: the trace's
// finding, which says more, replaces the race detector's of the same kind and line. It
// returns the stored finding when f was added (isNew) or replaced an earlier one.
func (c *campaign) merge(t *testState, f *Finding) (stored *Finding, isNew bool) {
	key := primaryKey(f)
	// Not for a race another test's report found at the same line (one write, two tests'
	// reads): dropped, this test's failing runs were silent (survey rerun, sony/gobreaker
	// TestGeneration beside TestCustomCircuitBreaker).
	if prev := c.byPrimary[key]; prev != nil && prev.Fingerprint != f.Fingerprint && !(isRaceFinding(f) && isRaceFinding(prev) && (prev.Package != f.Package || prev.Test != f.Test)) {
		if isRaceFinding(f) {
			if f.Confidence != analysis.Predicted && prev.Package == f.Package && prev.Test == f.Test {
				// the race detector saw it happen in this run (a WaitGroup race the trace
				// only predicts there): the kept finding happened in this run too
				t.noteSeen([]Finding{{Finding: analysis.Finding{Fingerprint: prev.Fingerprint, Confidence: f.Confidence}}}, f.Run)
			}
			return nil, false
		}
		if isRaceFinding(prev) {
			c.drop(prev)
		}
	}
	old := c.findings[f.Fingerprint]
	switch {
	case old == nil:
		nf := *f
		c.findings[f.Fingerprint] = &nf
		if c.byPrimary[key] == nil {
			c.byPrimary[key] = &nf
		}
		t.found = append(t.found, &nf)
		c.traceRefs[nf.Trace]++
		return &nf, true
	case old.Earlier && confidenceRank(f.Confidence) < confidenceRank(old.Confidence):
		// An earlier campaign confirmed (or saw happen) what this run only predicts: its
		// finding and recipe replay the bug; this run's would not.
		return nil, false
	case old.Package == f.Package && old.Test == f.Test && (old.Earlier || f.Run < old.Run):
		// An earlier campaign's finding found again: this campaign's run and trace are
		// the evidence now.
		c.release(old.Trace)
		conf, replay, confirmation, refuted := old.Confidence, old.Replay, old.Confirmation, old.Refuted
		*old = *f
		if conf == analysis.Confirmed { // an earlier run predicted what a replay confirmed
			old.Confidence, old.Replay, old.Confirmation = conf, replay, confirmation
		}
		if refuted != "" && old.Confidence == analysis.Predicted { // predicted again: still refuted
			old.Confirmation, old.Refuted = confirmation, refuted
		}
		c.traceRefs[old.Trace]++
		return old, false
	}
	return nil, false
}

// confidenceRank orders confidences by the evidence they carry: a bug seen happen (in the
// run, or in a replay that confirmed it) over one predicted.
func confidenceRank(c analysis.Confidence) int {
	if c == analysis.Predicted {
		return 0
	}
	return 1
}

// drop removes a finding from the campaign.
func (c *campaign) drop(f *Finding) {
	delete(c.findings, f.Fingerprint)
	if key := primaryKey(f); c.byPrimary[key] == f {
		delete(c.byPrimary, key)
	}
	for _, t := range c.tests {
		t.found = slices.DeleteFunc(t.found, func(g *Finding) bool { return g == f })
	}
	c.release(f.Trace)
}

func primaryKey(f *Finding) string {
	file, line, _ := primary(*f)
	return fmt.Sprintf("%s\x00%s\x00%d", f.Kind, file, line)
}

func (c *campaign) release(tracePath string) {
	c.traceRefs[tracePath]--
	if c.traceRefs[tracePath] <= 0 {
		delete(c.traceRefs, tracePath)
		if _, mine := below(c.dir, tracePath); !c.keepTraces && mine {
			// Only this campaign's traces: an earlier campaign's report still names its own.
			os.Remove(tracePath)
		}
	}
}

// below returns path relative to dir when path lies inside dir.
func below(dir, path string) (string, bool) {
	rel, err := filepath.Rel(dir, path)
	if path == "" || err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

func derefAll(fs []*Finding) []Finding {
	out := make([]Finding, len(fs))
	for i, f := range fs {
		out[i] = *f
	}
	return out
}

func (c *campaign) report(p Progress) {
	if c.progress == nil {
		return
	}
	for _, t := range c.tests {
		if !t.done {
			continue
		}
		p.TestsDone++
		if !t.announced && !t.first.IsZero() {
			t.announced = true
			e := TestEnded{Package: t.bin.Package, Test: t.name, Runs: t.runs, CutShort: t.cutShort, Analyzed: t.notes.analyzed,
				Statuses: maps.Clone(t.statuses), Elapsed: t.last.Sub(t.first), Failing: t.failing(), FailsAfter: t.failsAfter()}
			g := c.grouped(derefAll(t.found))
			e.Findings, e.Hints = gatingCount(g)
			e.Timing = timingCount(g)
			p.Ended = append(p.Ended, e)
		}
	}
	p.TestsTotal = len(c.tests)
	p.Runs, p.CutShort = c.runs, c.cut
	all := make([]Finding, 0, len(c.findings))
	for _, f := range c.findings {
		all = append(all, *f)
	}
	g := c.grouped(all)
	p.Findings, p.Hints = gatingCount(g)
	p.Timing = timingCount(g)
	p.Elapsed = time.Since(c.start)
	c.progress(p)
}

// result assembles the Report: every distinct finding (not yet grouped) by primary
// position, tests by package and name.
func (c *campaign) result() *Report {
	rep := &Report{Findings: []Finding{}, Tests: []TestResult{}}
	for _, t := range c.tests {
		if t.overBudget != nil {
			w := t.overBudget.Error()
			if t.overBudgetRuns > 1 {
				w += fmt.Sprintf(" (so were %d more runs of %s)", t.overBudgetRuns-1, t.name)
			}
			rep.Warnings = append(rep.Warnings, w)
		}
	}
	rep.Warnings = append(rep.Warnings, c.derivationWarnings()...)
	rep.Warnings = append(rep.Warnings, c.traceCutWarnings()...)
	for _, f := range c.findings {
		f.Timing = c.timingOf(*f) // the campaign's verdict, not its first run's evidence
		rep.Findings = append(rep.Findings, *f)
	}
	slices.SortFunc(rep.Findings, compareFindings)
	for _, t := range c.tests {
		tr := TestResult{Package: t.bin.Package, Test: t.name, Runs: t.runs, Analyzed: t.notes.analyzed, CutShort: t.cutShort,
			Slow: t.notes.slow + t.notes.capped, Borrowed: t.borrowed.Seconds(), Signatures: len(t.signatures), Steered: t.steered, Status: string(t.worst), Statuses: t.statuses, Failing: t.failing(), FailsAfter: t.failsAfter(),
			Discarded: t.discarded, TraceCut: t.cuts.recorder.runs, AnalysisCut: t.cuts.budget.runs}
		if t.earlierCampaigns > 0 {
			tr.EarlierRuns, tr.EarlierCampaigns = t.earlierRuns, t.earlierCampaigns
			tr.TotalSignatures = len(t.seenBefore)
			for sig := range t.signatures {
				if !t.seenBefore[sig] {
					tr.TotalSignatures++
				}
			}
		}
		if !t.first.IsZero() && !t.last.IsZero() {
			tr.Seconds = t.last.Sub(t.first).Seconds()
		}
		rep.Tests = append(rep.Tests, tr)
	}
	slices.SortFunc(rep.Tests, func(a, b TestResult) int {
		return cmp.Or(cmp.Compare(a.Package, b.Package), cmp.Compare(a.Test, b.Test))
	})
	return rep
}

func compareFindings(a, b Finding) int {
	fa, la, ca := primary(a)
	fb, lb, cb := primary(b)
	return cmp.Or(cmp.Compare(fa, fb), cmp.Compare(la, lb), cmp.Compare(ca, cb), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.ID, b.ID))
}

func primary(f Finding) (string, int, int) {
	if len(f.Positions) == 0 {
		return "", 0, 0
	}
	p := f.Positions[0]
	return p.File, p.Line, p.Column
}

func (c *campaign) writeReport(rep *Report) error {
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(c.dir, "report.json"), data, 0o644)
}
