package analysis

// Clocks answers happens-before queries between any two events of a trace. It keeps one
// vector clock per event, shared between consecutive events of a goroutine that learned
// nothing new in between; a new one shares its tree with the previous one but for the
// paths that changed, so it costs memory proportional to the number of synchronizations
// times a path (a leaf of 64 entries and an inner node or a few): meant for the moderate
// traces fuzzing works on, not for multi-million-event traces (Analyze does not need it).
type Clocks struct {
	gOf   []int32
	epoch []uint32
	clock []vclock // per event; ownEp 0: never processed
}

// Clocks computes (once) the per-event clocks of the trace. Its methods satisfy the
// fuzzer's HB interface.
func (r *Result) Clocks() *Clocks {
	c, _ := r.clocksWithin(0)
	return c
}

// ClocksWithin is Clocks within the memory budget of the analysis (AnalyzeWith's): past
// it, they are not computed, and the error is a *BudgetError.
func (r *Result) ClocksWithin() (*Clocks, error) { return r.clocksWithin(r.opts.Budget()) }

func (r *Result) clocksWithin(budget int64) (*Clocks, error) {
	if r.clocks == nil {
		e := newEngine(r.Trace)
		e.rec = &clockRecorder{}
		e.budget = budget
		e.run()
		if e.over != nil {
			e.over.Run = r.opts.Run
			return nil, e.over
		}
		r.clocks = &Clocks{gOf: e.r.gOf, epoch: e.r.epoch, clock: e.rec.clock}
	}
	return r.clocks, nil
}

// clockRecorder shares a goroutine's clock snapshot between its events until it changes.
type clockRecorder struct {
	clock []vclock
	cur   []vclock
}

// record stores the clock of goroutine g as event i's clock (unless already recorded).
func (e *engine) record(i int32, g int32) {
	rc := e.rec
	if rc.clock == nil {
		rc.clock = make([]vclock, len(e.t.Events))
		rc.cur = make([]vclock, e.ng)
	}
	if rc.clock[i].ownEp != 0 {
		return
	}
	vc := &e.vc[g]
	cur := &rc.cur[g]
	// (the trees are equal when they are one: a tree changes by copying what it changes)
	if cur.ownEp == 0 || cur.root != vc.root {
		e.ck.assign(cur, vc)
	}
	rc.clock[i] = e.snapshot(cur)
}

// HappensBefore reports whether event i happens before event j. A send happens before the
// receive it pairs with (not the other way round), an event before every later event of
// its goroutine.
func (c *Clocks) HappensBefore(i, j int) bool {
	if i == j || i < 0 || j < 0 || i >= len(c.gOf) || j >= len(c.gOf) {
		return false
	}
	gi, gj := c.gOf[i], c.gOf[j]
	if gi < 0 || gj < 0 || c.epoch[i] == 0 || c.clock[j].ownEp == 0 {
		return false
	}
	if gi == gj {
		return c.epoch[i] < c.epoch[j]
	}
	return c.epoch[i] <= c.clock[j].tree(gi)
}

// Concurrent reports whether neither of events i and j happens before the other.
func (c *Clocks) Concurrent(i, j int) bool {
	return i != j && !c.HappensBefore(i, j) && !c.HappensBefore(j, i)
}
