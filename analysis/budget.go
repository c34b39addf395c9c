package analysis

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"unsafe"

	"github.com/goweave/goweave/analysis/trace"
)

// Options configure one analysis.
type Options struct {
	// Run names what is analyzed (a trace file, a run of a campaign) in errors.
	Run string
	// MemoryBudget bounds the bytes one analysis may hold: the trace's events and the
	// analysis's own state. 0: DefaultMemoryBudget(); negative: no bound.
	MemoryBudget int64
	// Stop, when closed, stops the walk over the events within budgetCheckEvery events:
	// the analysis returns ErrStopped and releases what it held (a campaign whose time
	// budget ended no longer waits for it). nil: never.
	Stop <-chan struct{}
	// Reserved: the caller reserved this analysis's memory from the process's pool
	// (Reserve), with what it holds beside it; the analysis does not reserve again.
	Reserved bool
	// Test and Dir, when known, are the test function that ran and its package's
	// directory: a finding inside the package's code names the test's calls that led
	// to it (testcalls.go).
	Test, Dir string
}

// ErrStopped is the error of an analysis stopped by its Options.Stop.
var ErrStopped = errors.New("the analysis was stopped before it finished")

// BudgetError says that the analysis of one run stopped because it would hold more memory
// than its budget. Nothing of the analysis is reported for that run (what it computed so far
// is incomplete); other runs are not affected.
type BudgetError struct {
	Run        string
	Budget     int64 // bytes
	Held       int64 // bytes held, or about to be, when it stopped
	Events     int   // events of the trace (estimated from the file's size before reading it)
	Goroutines int   // goroutines (0: not known yet)
}

func (e *BudgetError) Error() string {
	what := fmt.Sprintf("%d events", e.Events)
	if e.Goroutines > 0 {
		what += fmt.Sprintf(" of %d goroutines", e.Goroutines)
	}
	run := e.Run
	if run == "" {
		run = "a run"
	}
	return fmt.Sprintf("analysis of %s stopped: it needs more than its memory budget of %s (%s held, %s); "+
		"this run is not analyzed, the others are; raise the budget (-analysis-memory) or make the test smaller",
		run, megabytes(e.Budget), megabytes(e.Held), what)
}

func megabytes(n int64) string { return fmt.Sprintf("%d MB", (n+1<<20-1)>>20) }

// AnalyzeWith is Analyze within a memory budget: past it, the analysis stops with a
// *BudgetError. The analyses of the process share its memory: one waits while the others
// running hold so much that it would pass its budget (budget_pool.go).
func AnalyzeWith(t *trace.Trace, o Options) (*Result, error) {
	if !o.Reserved {
		defer reserveFor(t, o.Budget())()
	}
	r, err := computeWith(t, o)
	if err != nil {
		return nil, err
	}
	runDetectors(r)
	r.shed()
	return r, nil
}

// shed drops what only the rules and the detectors read, once they ran: the engine's
// per-event and per-object tables and its clocks (a fifth of a campaign's heap at its peak
// on a stream multiplexer's suite). A campaign keeps a run's Result while it derives
// schedules from it; what the Result's methods answer stays (Clocks recomputes).
func (r *Result) shed() {
	r.eng = nil
	r.partnerMemo = nil
}

// ComputeWith is Compute within a memory budget (see AnalyzeWith).
func ComputeWith(t *trace.Trace, o Options) (*Result, error) {
	if !o.Reserved {
		defer reserveFor(t, o.Budget())()
	}
	return computeWith(t, o)
}

func computeWith(t *trace.Trace, o Options) (*Result, error) {
	e := newEngine(t)
	e.budget = o.Budget()
	e.stop = o.Stop
	e.run()
	if e.stopped {
		return nil, ErrStopped
	}
	if e.over != nil {
		e.over.Run = o.Run
		return nil, e.over
	}
	e.r.opts = o
	return e.r, nil
}

// AnalyzeFile reads the trace at path and analyzes it within the budget of o (o.Run
// defaults to path). A trace too large for the budget is refused from its size, before
// it is read.
func AnalyzeFile(path string, o Options) (*Result, error) {
	if o.Run == "" {
		o.Run = path
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		events := fi.Size() / trace.RecordSize
		if held := events * bytesPerEvent; o.Budget() > 0 && held > o.Budget() {
			return nil, &BudgetError{Run: o.Run, Budget: o.Budget(), Held: held, Events: int(events)}
		}
	}
	t, err := trace.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return AnalyzeWith(t, o)
}

// Budget is the memory budget the options give in bytes: MemoryBudget, 0 for
// DefaultMemoryBudget(), and 0 (no bound) for a negative one.
func (o Options) Budget() int64 {
	switch {
	case o.MemoryBudget < 0:
		return 0
	case o.MemoryBudget == 0:
		return DefaultMemoryBudget()
	}
	return o.MemoryBudget
}

// bytesPerEvent is what an analysis holds per event besides the clocks: the decoded event
// (trace.Event, 96 bytes), the engine's per-event tables (goroutine, epoch, object, order:
// 17 bytes) and, at most, one channel-user entry and its index slot per event and the
// facts (measured: 52-73 bytes per event allocated in all on the synthetic benchmark).
const bytesPerEvent = int64(unsafe.Sizeof(trace.Event{})) + 17 + 64

// budgetCheckEvery is how many events the engine walks between two looks at its budget: an
// event adds at most one path per clock it changes, so the overshoot stays small.
const budgetCheckEvery = 256

// heldBytes returns the bytes the engine holds: per event, and the clocks' nodes.
func (e *engine) heldBytes() int64 {
	return e.fixed + e.ck.bytes + e.extra
}

// overBudget reports (and records) whether the engine holds more than its budget, or was
// told to stop (Options.Stop): either way the walk ends.
func (e *engine) overBudget() bool {
	if e.stop != nil && !e.stopped {
		select {
		case <-e.stop:
			e.stopped = true
		default:
		}
	}
	if e.stopped {
		return true
	}
	if e.budget <= 0 || e.over != nil {
		return e.over != nil
	}
	if h := e.heldBytes(); h > e.budget {
		e.over = &BudgetError{Budget: e.budget, Held: h, Events: len(e.t.Events), Goroutines: e.ng}
	}
	return e.over != nil
}

// DefaultMemoryBudget is a quarter of the machine's memory (or of the cgroup's limit,
// when lower), and at most MaxDefaultMemoryBudget: the analyses of a campaign run beside
// the tests they analyze, and on a developer's machine beside an editor, gopls and a
// browser (a quarter of a 24 GB machine let one campaign reach 2.5 GB).
func DefaultMemoryBudget() int64 {
	total := memTotal()
	if limit := cgroupLimit(); limit > 0 && (total == 0 || limit < total) {
		total = limit
	}
	if total <= 0 {
		return MaxDefaultMemoryBudget // unknown
	}
	return min(total/4, MaxDefaultMemoryBudget)
}

// MaxDefaultMemoryBudget bounds the default budget: enough for the analysis of a full
// recorder buffer (4M events, about 700 MB at bytesPerEvent) or of 100,000 goroutines
// under one WaitGroup (about 170 MB); a larger run is said to be over the budget, which
// -analysis-memory raises.
const MaxDefaultMemoryBudget = 1 << 30

// memTotal reads MemTotal from /proc/meminfo (0 where unknown).
func memTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte("MemTotal:")); ok {
			kb, err := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(v), []byte(" kB"))), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// cgroupLimit reads the memory limit of this process's cgroup (v2), 0 if none.
func cgroupLimit() int64 {
	data, err := os.ReadFile("/sys/fs/cgroup/memory.max")
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(data)), 10, 64)
	if err != nil { // "max"
		return 0
	}
	return n
}
