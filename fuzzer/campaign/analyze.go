package campaign

import (
	"fmt"
	"os"
	"unsafe"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/mutate"
)

// analyzeTrace runs the happens-before analysis over one trace within o's memory budget
// (past it: *analysis.BudgetError). A variable so that tests can stand in for the analysis.
var analyzeTrace = func(tr *trace.Trace, o analysis.Options) (res *analysis.Result, err error) {
	// A trace the reader accepted can still hold combinations the analysis did not expect;
	// one bad run must not take the campaign down.
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("analysis failed on this trace: %v", p)
		}
	}()
	return analysis.AnalyzeWith(tr, o)
}

// tooLargeToRead returns a *analysis.BudgetError when decoding the trace at path alone would
// pass the memory budget (0: analysis.DefaultMemoryBudget(), negative: none): such a trace
// is not read at all.
func tooLargeToRead(path string, o analysis.Options) error {
	budget := o.Budget()
	fi, err := os.Stat(path)
	if budget <= 0 || err != nil {
		return nil
	}
	events := fi.Size() / trace.RecordSize
	if held := events * int64(unsafe.Sizeof(trace.Event{})); held > budget {
		return &analysis.BudgetError{Run: o.Run, Budget: budget, Held: held, Events: int(events)}
	}
	return nil
}

// prefixWithin is how many of the events of the trace at path its inspection reads: 0 (all
// of them) when decoding it fits the memory budget (tooLargeToRead), else the first ones
// that fit, the decoded events, the analysis and the signature together. A run cut by the
// memory budget is analyzed on its first operations, as one cut by the recorder's buffer is
// (tracecut.go): only what happened is reported, and the report says how much was left out.
// Before, such a run had no analysis at all. The error is tooLargeToRead's when not even
// minPrefixEvents fit.
func prefixWithin(path string, o analysis.Options) (int, error) {
	err := tooLargeToRead(path, o)
	if err == nil {
		return 0, nil
	}
	limit := o.Budget() / (analysis.BytesPerEvent + signatureBytesPerEvent)
	if limit < minPrefixEvents {
		return 0, err
	}
	return int(limit), nil
}

// retryPrefix is how many of a run's events (of events) to analyze again after its analysis
// passed the memory budget be midway (the decoded trace fit, its clocks did not: many
// goroutines), 0 for none. The walk stopped at an unknown point with be.Held about the
// budget, so a quarter of the share of the events the budget holds: a walk stopped past a
// quarter of the run fits then; one stopped earlier fails again and the run is not
// analyzed, as before, at the cost of one more try.
func retryPrefix(be *analysis.BudgetError, events int) int {
	if be.Held <= 0 || be.Budget <= 0 {
		return 0
	}
	n := int64(events) * min(be.Budget, be.Held) / be.Held / 4
	if n < minPrefixEvents || n >= int64(events) {
		return 0
	}
	return int(n)
}

// minPrefixEvents is the least prefix worth analyzing (a variable for tests).
var minPrefixEvents int64 = 10000

// signatureWithin is the run's signature, or "" when the run is too large to sign within
// the analysis's memory budget memory (bytes, 0: none) beside its trace: the same bound as
// the schedules derived from it (memory_derive.go), which the signature costs about as much
// as (its names and execution graph: 0.71 GB of a 1.24 GB live heap at the peak of a
// campaign of xtaci/smux, beside the 0.42 GB of the same run's decoded trace). Such a run's
// interleaving is not counted as coverage, and no schedule is derived from it (the report
// says so).
func signatureWithin(tr *trace.Trace, memory int64) string {
	if tooLargeToDerive(len(tr.Events), memory) {
		return ""
	}
	return signature(tr)
}

// signature is a run's schedule coverage: the hash of its execution graph (per object, the
// order of its operations and which send each receive took; see mutate.Signature). Unlike
// the global completion order of all operations, it does not change when unrelated
// operations finish in another order, so timing noise is not counted as new coverage.
func signature(tr *trace.Trace) string {
	return mutate.Signature(&mutate.Run{Trace: tr, SelectPartners: map[int][]int{}})
}
