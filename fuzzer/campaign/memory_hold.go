package campaign

import "sync"

// A run's decoded trace and analysis outlive its inspection: the campaign's dispatcher
// reads them to merge findings, write recipes and derive the strategies' schedules
// (clocks, names, orders: on a large run as much again), and only then drops them. The
// inspection's reservation from the analyses' pool (memory_inspect.go) is therefore held
// until the dispatcher drops the run, not until the inspection returns: otherwise the
// next large run's inspection starts while the previous one's trace, analysis and
// schedules are still live, outside every budget (2.6 GB for one 2.9M-event run of
// panjf2000/ants, 1.6-1.9 GB on xtaci/smux's suite with a 1 GB budget).
//
// The dispatcher never waits for the pool, so holding a reservation until it gets to a
// run cannot stall an inspection forever: it waits at most for the runs before it.

// holdInspection makes release the run's: dropTrace, whoever calls it first, releases it.
func (ar *AnalyzedRun) holdInspection(release func()) {
	ar.held = sync.OnceFunc(release)
}

// dropTrace drops the run's decoded trace and analysis and returns its inspection's
// reservation to the pool. Idempotent.
func (ar *AnalyzedRun) dropTrace() {
	if ar == nil {
		return
	}
	ar.Recorded, ar.Analysis = nil, nil
	ar.release()
}

// release returns the run's reservation, keeping its trace and analysis.
func (ar *AnalyzedRun) release() {
	if ar.held != nil {
		ar.held()
	}
}

// drop releases the reservation of a job's run, if any (deferred by finish: every path
// out of it, a run put back in the queue included).
func (res jobResult) drop() { res.run.dropTrace() }

// dropUnseen releases the reservation of an inspection whose result nobody will read (its
// campaign or time budget ended first): the inspection still sends it.
func dropUnseen(inspected <-chan *AnalyzedRun) {
	go func() { (<-inspected).dropTrace() }()
}
