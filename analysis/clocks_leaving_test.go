package analysis

import (
	"errors"
	"testing"
)

// ClocksLeaving computes the clocks within the analysis's budget less what the caller
// holds beside them: what fits the whole budget does not fit once that is left aside.
func TestClocksLeaving(t *testing.T) {
	b := blockers(300)
	r, err := AnalyzeWith(b, Options{Run: "leaving", MemoryBudget: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if c, err := r.ClocksLeaving(1 << 20); err != nil || c == nil {
		t.Fatalf("ClocksLeaving 1 MB of a 64 MB budget: %v", err)
	}
	r.clocks = nil
	if _, err := r.ClocksLeaving(64<<20 - 1); !errors.As(err, new(*BudgetError)) {
		t.Errorf("ClocksLeaving all but a byte of the budget: %v, want a BudgetError", err)
	}
	r.opts.MemoryBudget = -1 // none: computed whatever they cost
	if _, err := r.ClocksLeaving(1 << 40); err != nil {
		t.Errorf("ClocksLeaving without a budget: %v", err)
	}
}
