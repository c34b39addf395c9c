package campaign

import (
	"fmt"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/mutate"
)

// analyzeTrace runs the happens-before analysis over one trace. A variable so that tests
// can stand in for the analysis.
var analyzeTrace = func(tr *trace.Trace) (res *analysis.Result, err error) {
	// A trace the reader accepted can still hold combinations the analysis did not expect;
	// one bad run must not take the campaign down.
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("analysis failed on this trace: %v", p)
		}
	}()
	return analysis.Analyze(tr), nil
}

// signature is a run's schedule coverage: the hash of its execution graph (per object, the
// order of its operations and which send each receive took; see mutate.Signature). Unlike
// the global completion order of all operations, it does not change when unrelated
// operations finish in another order, so timing noise is not counted as new coverage.
func signature(tr *trace.Trace) string {
	return mutate.Signature(&mutate.Run{Trace: tr, SelectPartners: map[int][]int{}})
}
