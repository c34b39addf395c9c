package analysis

// ClocksLeaving is ClocksWithin with room left for n bytes that the caller will hold
// beside the clocks (a campaign: the operations' names and orders its strategies derive
// from the same run): they stop at the analysis's budget less n, with a *BudgetError.
// With no budget, they are computed whatever they cost, as by Clocks.
func (r *Result) ClocksLeaving(n int64) (*Clocks, error) {
	budget := r.opts.Budget()
	if budget <= 0 {
		return r.clocksWithin(0)
	}
	return r.clocksWithin(max(budget-max(n, 0), 1))
}
