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
	budget := o.MemoryBudget
	if budget == 0 {
		budget = analysis.DefaultMemoryBudget()
	}
	fi, err := os.Stat(path)
	if budget < 0 || err != nil {
		return nil
	}
	events := fi.Size() / trace.RecordSize
	if held := events * int64(unsafe.Sizeof(trace.Event{})); held > budget {
		return &analysis.BudgetError{Run: o.Run, Budget: budget, Held: held, Events: int(events)}
	}
	return nil
}

// signature is a run's schedule coverage: the hash of its execution graph (per object, the
// order of its operations and which send each receive took; see mutate.Signature). Unlike
// the global completion order of all operations, it does not change when unrelated
// operations finish in another order, so timing noise is not counted as new coverage.
func signature(tr *trace.Trace) string {
	return mutate.Signature(&mutate.Run{Trace: tr, SelectPartners: map[int][]int{}})
}
