package mutate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// HB is the happens-before relation of one recorded run, over indexes into Trace.Events.
type HB interface {
	// HappensBefore reports whether event i happens before event j (i != j).
	HappensBefore(i, j int) bool
	// Concurrent reports whether neither of events i and j happens before the other (i != j).
	Concurrent(i, j int) bool
}

// Run is one analyzed run: what every strategy mutates.
type Run struct {
	Trace *trace.Trace
	HB    HB
	// Names names the trace's goroutines and operations; computed by Prepare when nil.
	Names *schedule.Names
	// SelectPartners maps a Select event index to the case indexes (as the trace records them) of its non-chosen
	// cases that have a possible partner (from the analysis' findings). When nil, Prepare
	// computes it from HB with PossiblePartners.
	SelectPartners map[int][]int
	// FlowPairs, when not nil, are the pairs the flow strategy reverses (from the analysis'
	// concurrent pairs, which ignore the order a Once or mutex itself imposes); when nil,
	// FlowPairs computes them from HB.
	FlowPairs []FlowPair
	// Origin is the Key of the Mutation this run executed; "" for a free run.
	Origin string
	// Proposed, when not nil, reports whether a Mutation key was proposed before, by this
	// campaign or an earlier one of the same test (the campaign runs a key once): a
	// strategy that limits its proposals per run skips those rather than spend its limit.
	Proposed func(key string) bool
	// Diverged reports that the runtime abandoned the run's schedule (trace META
	// "schedule.diverged" != 0): strategies that rely on the replay having been faithful
	// produce nothing from such runs.
	Diverged bool
	// Deadline, when not zero, is when the proposals stop counting (the test's time budget):
	// strategies return what they have when it passes, between two mutations. A run of a
	// million operations costs a whole order's work per mutation.
	Deadline time.Time

	prep sync.Once
	lin  []int // schedulable completed events in the order they took effect (effectKeys)
	rank []int // rank[i] = index of event i in lin, -1 if absent
	// linPin is lin with the atomic operations of goroutines with a logical id, for orders
	// that pin atomics (Replay, PinRun), a blocked channel operation at its request
	// (pinStamps); pinRank ranks events in it as rank does in lin.
	linPin  []int
	pinRank []int
	// selectExecs lists the executions of each select statement in request order (the
	// order in which the runtime counts them).
	selectExecs map[schedule.Pos][]int
}

// Late reports whether r's Deadline has passed.
func (r *Run) Late() bool { return !r.Deadline.IsZero() && time.Now().After(r.Deadline) }

// Prepare fills in the derived fields of r that are nil, once. Strategies call it
// themselves; a campaign that hands one Run to several strategies at once must call it
// before (the fields are then only read).
func (r *Run) Prepare() {
	r.prep.Do(func() {
		if r.Names == nil {
			r.Names = schedule.Name(r.Trace)
		}
		if r.SelectPartners == nil {
			r.SelectPartners = PossiblePartners(r.Trace, r.HB)
		}
		for i := range r.Trace.Events {
			if !r.Trace.Events[i].Completed() {
				continue
			}
			if r.Names.Schedulable(i) {
				r.lin = append(r.lin, i)
			}
			if r.Names.Pinnable(i) {
				r.linPin = append(r.linPin, i)
			}
		}
		keys := effectKeys(r.Trace)
		r.rank = ranked(r.lin, len(r.Trace.Events), func(i int) uint64 { return keys[i] })
		stamps := pinStamps(r.Trace, keys)
		r.pinRank = ranked(r.linPin, len(r.Trace.Events), func(i int) uint64 { return stamps[i] })
		r.selectExecs = map[schedule.Pos][]int{}
		for i := range r.Trace.Events {
			if r.Trace.Events[i].Kind == trace.KindSelect {
				p := r.Names.Ops[i].Pos
				r.selectExecs[p] = append(r.selectExecs[p], i)
			}
		}
		for _, list := range r.selectExecs {
			slices.SortStableFunc(list, func(a, b int) int { return cmpU64(r.Trace.Events[a].Pre, r.Trace.Events[b].Pre) })
		}
	})
}

// ranked sorts events by stamp and returns the rank of each of n events in it, -1 for
// the others.
func ranked(events []int, n int, stamp func(int) uint64) []int {
	slices.SortStableFunc(events, func(a, b int) int { return cmpU64(stamp(a), stamp(b)) })
	rank := make([]int, n)
	for i := range rank {
		rank[i] = -1
	}
	for k, e := range events {
		rank[e] = k
	}
	return rank
}

// Mutation is a schedule to run, proposed by a strategy.
type Mutation struct {
	Strategy string
	// Key identifies what the schedule steers; equal keys are the same run. Strategies dedup
	// by it and record it as the Run.Origin of the run that executes the schedule.
	Key      string
	Schedule *schedule.Schedule
	// Note says in one line what the schedule changes, for people (reports, hovers).
	Note string
}

// shortOp names an operation for a Note: goroutine, kind, file base name and line, occurrence.
func shortOp(op schedule.OpID) string {
	return fmt.Sprintf("%s %s %s:%d#%d", op.G, op.Kind, filepath.Base(op.Pos.File), op.Pos.Line, op.N)
}

// Strategy proposes new schedules from an analyzed run. Implementations keep state across runs
// (feedback, dedup) behind a mutex, so a campaign may call Next from several goroutines.
type Strategy interface {
	Name() string
	// Next returns the mutations worth running after run, possibly none.
	Next(run *Run) []Mutation
}

// keyOf derives a Mutation key from a strategy name and the schedule's canonical encoding.
func keyOf(strategy string, s *schedule.Schedule) (string, bool) {
	b, err := schedule.Marshal(s)
	if err != nil {
		return "", false
	}
	sum := sha256.Sum256(b)
	return strategy + ":" + hex.EncodeToString(sum[:12]), true
}

// linear returns the indexes of the schedulable, completed events of r, in completion order:
// the recorded run as a sequence of decisions. The slice is shared: do not modify it.
func linear(r *Run) []int {
	r.Prepare()
	return r.lin
}

// inPrefix reports whether event e is among the first n events of linear(r).
func inPrefix(r *Run, e, n int) bool {
	k := r.rank[e]
	return k >= 0 && k < n
}

// incomplete reports whether the recorder lost events (trace META "dropped" > 0): a replay
// of such a trace would wait for operations it does not list.
func incomplete(r *Run) bool {
	d := r.Trace.Meta["dropped"]
	return d != "" && d != "0"
}

// object returns the primitive an event operates on: its object, or for a select the channel
// of the chosen case (0 for default or an uncompleted select).
func object(e *trace.Event) uint64 {
	if e.Kind == trace.KindSelect {
		if c, ok := chosenCase(e); ok {
			return c.Obj
		}
		return 0
	}
	return e.Obj
}

// chosenCase returns the case a completed select chose; false for default or not completed.
func chosenCase(e *trace.Event) (trace.Case, bool) {
	if !e.Completed() || e.A == trace.SelectDefault {
		return trace.Case{}, false
	}
	for _, c := range e.Cases {
		if uint64(c.Index) == e.A {
			return c, true
		}
	}
	return trace.Case{}, false
}

// chanDir classifies a channel event: +1 a send (or a select that chose a send case), -1 a
// receive (or a select that chose a receive case), 0 anything else.
func chanDir(e *trace.Event) int {
	switch e.Kind {
	case trace.KindChanSend:
		return 1
	case trace.KindChanRecv:
		return -1
	case trace.KindSelect:
		if c, ok := chosenCase(e); ok {
			if c.Send {
				return 1
			}
			return -1
		}
	}
	return 0
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
