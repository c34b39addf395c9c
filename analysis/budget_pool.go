package analysis

import (
	"sync"

	"github.com/goweave/goweave/analysis/trace"
)

// The analyses of one process share its memory: a campaign analyzes up to -p runs at
// once, and each budget alone let two large runs hold twice what one may. Each analysis
// reserves what it will hold about (its events at bytesPerEvent, at most its budget)
// before its walk; while others hold so much that it would pass its budget, it waits for
// them to finish. It never waits while holding a reservation, so no analysis waits for
// one that waits: the first always runs.
type memPool struct {
	mu      sync.Mutex
	changed *sync.Cond
	held    int64 // bytes reserved by the analyses running now
	running int
	waits   int // times an analysis waited (tests)
}

var analyses = newMemPool()

func newMemPool() *memPool {
	p := &memPool{}
	p.changed = sync.NewCond(&p.mu)
	return p
}

// reserve waits until n more bytes fit within limit beside what the running analyses
// reserved (or none runs), and reserves them.
func (p *memPool) reserve(n, limit int64) {
	p.mu.Lock()
	for p.running > 0 && p.held+n > limit {
		p.waits++
		p.changed.Wait()
	}
	p.held += n
	p.running++
	p.mu.Unlock()
}

// release returns a reservation of n bytes.
func (p *memPool) release(n int64) {
	p.mu.Lock()
	p.held -= n
	p.running--
	p.mu.Unlock()
	p.changed.Broadcast()
}

// reserveFor reserves from the process's pool what an analysis of t within budget will
// hold about, waiting for room; the returned func releases it.
func reserveFor(t *trace.Trace, budget int64) (release func()) {
	if budget <= 0 {
		return func() {}
	}
	n := min(int64(len(t.Events))*bytesPerEvent, budget)
	analyses.reserve(n, budget)
	return func() { analyses.release(n) }
}

// Reserve reserves n bytes (at most the budget of o) from the process's pool, as an
// analysis does, for a caller that holds more than the analysis for the same run (a
// campaign: the decoded trace before the analysis, the schedule signature after it); it
// waits while the analyses and reservations running would pass the budget together. Pass
// Options.Reserved to the analysis run under it. The returned func releases it.
func Reserve(n int64, o Options) (release func()) {
	budget := o.Budget()
	if budget <= 0 {
		return func() {}
	}
	n = min(max(n, 0), budget)
	analyses.reserve(n, budget)
	return func() { analyses.release(n) }
}

// BytesPerEvent is what an analysis holds per event of its trace, besides its clocks
// (the decoded event included): for callers estimating a reservation from a trace's size.
const BytesPerEvent = bytesPerEvent
