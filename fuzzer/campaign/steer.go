package campaign

import (
	"errors"
	"fmt"
	"hash/fnv"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer/mutate"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// maxQueue bounds the run requests waiting per test: strategies can propose far more
// schedules than a budget can run, and the first ones are the most promising.
const maxQueue = 256

// maxQueueBytes bounds the schedules waiting per test in memory: one schedule of a run of a
// million operations takes tens of MB.
const maxQueueBytes = 256 << 20

// boundQueue drops the latest requests of q beyond maxQueue requests or maxQueueBytes.
func boundQueue(q []*RunRequest) []*RunRequest {
	bytes := 0
	for i, r := range q {
		if bytes += len(r.Recipe); i >= maxQueue || bytes > maxQueueBytes {
			clear(q[i:])
			return q[:i]
		}
	}
	return q
}

// steeringStrategy steers a test with fuzzer/mutate strategies: it hands each analyzed run
// to every one of them and queues their schedules, alternating between strategies so that
// none starves the others, and never the same schedule twice.
type steeringStrategy struct {
	name       string
	strategies []mutate.Strategy
	proposed   map[string]bool // Mutation keys already queued
	favoured   string          // the strategy that takes every other turn (see favour)
	notDerived notDerived      // runs too large to derive schedules from (memory_derive.go)
}

func newSteeringStrategy(name string, seed uint64) (*steeringStrategy, error) {
	names := []string{name}
	if name == "auto" {
		names = mutate.Names
	}
	s := &steeringStrategy{name: name, proposed: map[string]bool{}}
	for _, n := range names {
		m, err := mutate.New(n, seed)
		if err != nil {
			return nil, err
		}
		s.strategies = append(s.strategies, m)
	}
	return s, nil
}

func (s *steeringStrategy) Name() string { return s.name }

// Mutate implements Strategy.
func (s *steeringStrategy) Mutate(ar *AnalyzedRun) (out []*RunRequest) {
	if ar.Recorded == nil || ar.Analysis == nil {
		return nil
	}
	hb, err := derivationClocks(ar)
	if err != nil {
		if be, ok := errors.AsType[*analysis.BudgetError](err); ok {
			s.notDerived.note(ar, be)
		}
		return nil
	}
	run := mutationRun(ar, hb)
	run.Proposed = func(key string) bool { return s.proposed[key] }
	if s.favoured == "" && len(s.strategies) > 1 {
		s.favoured = favour(ar.Analysis)
	}
	var proposals [][]mutate.Mutation
	for _, st := range s.strategies {
		if run.Late() {
			break
		}
		proposals = append(proposals, safeNext(st, run))
	}
	held := 0 // bytes of the schedules in out
	for i := 0; len(out) < maxQueue; i++ {
		more := false
		for _, ms := range proposals {
			if i >= len(ms) {
				continue
			}
			more = true
			m := ms[i]
			if m.Schedule == nil || s.proposed[m.Key] {
				continue
			}
			recipe, err := schedule.Marshal(m.Schedule)
			if err != nil {
				continue // a strategy proposed an invalid schedule: nothing to run
			}
			if held += len(recipe); !recipesFit(ar, held) {
				s.notDerived.cut(ar)
				return out
			}
			s.proposed[m.Key] = true
			out = append(out, &RunRequest{Strategy: m.Strategy, Parent: ar.Index, Key: m.Key, Note: m.Note, Recipe: recipe})
		}
		if !more {
			break
		}
	}
	return out
}

// favouredStrategy reports which strategy takes every other turn of the test's queue.
func (s *steeringStrategy) favouredStrategy() string { return s.favoured }

// favour picks, from a test's first analyzed run, the strategy whose first proposals are the
// cheapest bet. A select case that no execution took although a partner for it ran
// concurrently is a branch one GFuzz run opens; without one, a flow delay, which reverses
// one concurrent pair the analysis found, was the single strategy that found most corpus
// kernels in fewest runs (fuzzer/ablation_test.go). The select, order and prefix strategies
// still run every other turn.
func favour(res *analysis.Result) string {
	for _, sc := range res.SelectPartners() {
		if !sc.Chosen && !sc.Default && sc.Known && sc.Partner >= 0 {
			return "gfuzz"
		}
	}
	return "flow"
}

// safeNext asks one strategy for mutations; a strategy that panics on a run proposes nothing
// for it rather than ending the campaign.
func safeNext(st mutate.Strategy, run *mutate.Run) (ms []mutate.Mutation) {
	defer func() {
		if recover() != nil {
			ms = nil
		}
	}()
	return st.Next(run)
}

// mutationRun gives the strategies what the analysis knows about a run: the partial
// happens-before relation, the select cases that had a possible partner, and the
// concurrent same-object pairs a flow mutation can reverse.
func mutationRun(ar *AnalyzedRun, hb mutate.HB) *mutate.Run {
	tr, res := ar.Recorded, ar.Analysis
	run := &mutate.Run{
		Deadline: ar.Deadline,
		Trace:    tr,
		HB:       hb,
		Diverged: schedule.ReadOutcome(tr.Meta).Diverged > 0,
	}
	if ar.Request != nil {
		run.Origin = ar.Request.Key
	}
	byPos := map[schedule.Pos][]int{}
	for _, sc := range res.SelectPartners() {
		// A case on a channel made outside recorded code (a context's Done, a timer) has
		// partners the trace cannot show: it is still worth preferring.
		if sc.Chosen || (sc.Partner < 0 && sc.Known) || sc.Select < 0 || sc.Select >= len(tr.Events) {
			continue
		}
		p := tr.Position(tr.Events[sc.Select].Pos)
		key := schedule.Pos{File: p.File, Line: p.Line}
		byPos[key] = append(byPos[key], sc.Case)
	}
	run.SelectPartners = mutate.PartnersByPosition(tr, byPos)
	run.FlowPairs = flowPairs(res.ConcurrentPairs())
	run.Prepare()
	return run
}

func flowPairs(pairs []analysis.Pair) []mutate.FlowPair {
	out := make([]mutate.FlowPair, 0, len(pairs))
	for _, p := range pairs {
		out = append(out, mutate.FlowPair{First: p.First, Second: p.Second})
	}
	return out
}

// testSeed makes a test's random choices reproducible from campaign to campaign.
func testSeed(pkg, test string) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s.%s", pkg, test)
	return h.Sum64()
}
