package analysis

import "github.com/goweave/goweave/analysis/trace"

// Result is the happens-before analysis of one trace: the vector-clock epoch of every
// event, the facts the engine gathered while walking the trace (concurrent pairs, select
// partners, lock dependencies, ...), and the findings of the detectors.
type Result struct {
	Trace    *trace.Trace
	Findings []Finding

	// Per event (index in Trace.Events): dense goroutine index (-1: none) and the epoch
	// (the event's own entry in its goroutine's vector clock; 0: never processed).
	gOf   []int32
	epoch []uint32

	// Goroutines by dense index.
	Goroutines []GoroutineInfo
	gIndex     map[uint64]int32

	facts facts
	eng   *engine

	opts      Options // of AnalyzeWith or ComputeWith
	clocks    *Clocks
	leaksDone bool
	leakList  []leak
	// per channel and direction: its latest users of two goroutines (partners of leaks)
	partnerMemo  map[int32][2]chanUser
	makes        map[uint64]int32 // channel -> the event that made it (makeEvent), built on first use
	timerChans   map[uint64]bool  // one-shot timers' channels (oneShotTimerChan), built on first use
	receivers    map[uint64]int32 // per channel, its only receiving goroutine, -1 for several (soleReceiver), built on first use
	timerPending int8             // funcTimerPending: 0 not computed, 1 a function timer is pending, -1 none
	bubbleEnded  map[uint64]bool  // synctest bubbles that ended (endedBubble), built on first use
}

// GoroutineInfo describes one goroutine of the trace.
type GoroutineInfo struct {
	ID      uint64
	Parent  uint64
	Spawn   int  // GoSpawn event that created it; -1 unknown (the test goroutine, std spawns)
	Ended   bool // a GoEnd was recorded
	Alive   bool // listed in GOROUTINES (alive when the trace was written)
	Blocked int  // event it is blocked in forever (Post == 0); -1 none
	Status  uint32
	Reason  string
}

// PairKind names the operation pairs ConcurrentPairs reports.
type PairKind string

const (
	PairOnce    PairKind = "once"    // First ran f, Second did not
	PairTryLock PairKind = "trylock" // First acquired the mutex, Second is a TryLock that failed
	PairLock    PairKind = "lock"    // two acquisitions of one mutex
	PairSend    PairKind = "send"    // two completed sends on one channel
	PairRecv    PairKind = "recv"    // two completed receives on one channel
)

// Pair is two operations on the same object, in different goroutines, that the
// happens-before relation leaves unordered (for locks and Once: ignoring the ordering that
// the object itself imposed). First ran first in the recorded run and succeeded; a flow
// mutation delays First so that Second goes first.
type Pair struct {
	Kind          PairKind
	First, Second int // event indices
}

// ConcurrentPairs returns the concurrent same-object pairs of the run, one per pair of
// source positions, in the order they were found.
func (r *Result) ConcurrentPairs() []Pair { return r.facts.pairs }

// SelectCase says whether one case of a select statement had a possible communication
// partner in the run. Cases are aggregated per select statement (position) and case index
// over all executions of the select.
type SelectCase struct {
	Select  int    // an execution of the select (event index): the latest one checked
	Case    int    // case index in the trace's order, send cases first (see analysis/selectcase)
	Chan    uint64 // the case's channel in that execution
	Send    bool
	Chosen  bool // some execution took this case
	Partner int  // an operation that could have served it (event index); -1 none
	// Known is false when a channel of the case was not made by recorded code (a context's
	// Done channel, a timer): its operations are invisible, so "no partner" means nothing.
	Known bool
	// Default: the select has a default case (a non-blocking attempt, where a case that
	// never fires is the point of the idiom).
	Default bool
	// Foreign: some execution of the select took a case whose channel is outside the
	// recorded code (a context's Done channel, a timer): cancellation or a timeout decided
	// it, and the other cases may fire when that comes later.
	Foreign bool
}

// HasPartner reports whether the case could have been served in the run.
func (c SelectCase) HasPartner() bool { return c.Chosen || c.Partner >= 0 }

// SelectPartners returns, for every case of every select statement executed in the run
// (aggregated over its executions), whether a concurrent operation could have served it. A non-chosen case with a partner is
// a case select fuzzing can make the select take.
func (r *Result) SelectPartners() []SelectCase {
	out := make([]SelectCase, 0, len(r.facts.selectOrder))
	for _, k := range r.facts.selectOrder {
		c := *r.facts.selects[k]
		c.Foreign = r.facts.selectForeign[selectKey{pos: k.pos, g: k.g, cas: -1}]
		out = append(out, c)
	}
	return out
}

// SelectPartnersByEvent maps every executed select (event index) to the trace's
// indexes of its cases that were not chosen in that execution but have a possible partner
// in the run (as SelectPartners computes per select statement and channel). This is the
// form GFuzz-style select fuzzing consumes.
func (r *Result) SelectPartnersByEvent() map[int][]int {
	out := map[int][]int{}
	for i := range r.Trace.Events {
		ev := &r.Trace.Events[i]
		if ev.Kind != trace.KindSelect {
			continue
		}
		cases := []int{}
		for ci, c := range ev.Cases {
			if c.Obj == 0 || (ev.Flags.Has(trace.FlagSuccess) && uint64(ci) == ev.A) {
				continue
			}
			key := selectKey{pos: ev.Pos, cas: c.Index}
			if ev.Pos == 0 {
				key.g = r.gOf[i]
			}
			if sc := r.facts.selects[key]; sc != nil && sc.HasPartner() {
				cases = append(cases, c.Index)
			}
		}
		out[i] = cases
	}
	return out
}

// goroutine returns the info of the goroutine that performed event i.
func (r *Result) goroutine(i int) *GoroutineInfo {
	if g := r.gOf[i]; g >= 0 {
		return &r.Goroutines[g]
	}
	return nil
}
