package mutate

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// Prefix parameters.
const (
	prefixPerRun    = 4  // mutations of a run that found a new signature
	prefixLookahead = 64 // how far past a decision point an alternative operation is sought
	prefixAncestors = 8  // how many generations a new signature credits
	prefixAttemptsX = 8  // attempts per wanted mutation before giving up
)

// Decision is one changed scheduling decision: replay the recorded run up to Prefix
// operations (in recorded order), then admit Then in that order (a different operation next,
// or a different send before a receive), with Select taking Case instead of its recorded
// case when Select >= 0; after that the run is free.
type Decision struct {
	What   string // "order", "match" or "select"
	Prefix int    // number of operations of the recorded order replayed first
	Then   []int  // events admitted right after the prefix
	Select int    // a select event whose case changes, or -1
	Case   int
}

// Prefix is prefix-based exploration (the weak-memory fuzzing seed): a run whose schedule
// signature is new is mutated by changing one scheduling decision at a random point and
// replaying the prefix before it; prefixes whose runs keep finding new signatures gain energy
// and are mutated more.
type Prefix struct {
	Coverage     *Coverage
	PerRun       int           // mutations of a run with a new signature (default 4)
	Window       time.Duration // order window (default DefaultOrderWindow)
	SelectWindow time.Duration // select preference window (default DefaultSelectWindow)
	MaxQueued    int           // how often one schedule may be proposed (default 1)
	Rand         *rand.Rand

	mu     sync.Mutex
	queued map[string]int
	parent map[string]string // mutation key -> Origin of the run it was derived from
	energy map[string]int    // mutation key -> new signatures found by its run and descendants
}

// NewPrefix returns a prefix strategy that counts signatures in cov (a new Coverage if nil).
func NewPrefix(seed uint64, cov *Coverage) *Prefix {
	if cov == nil {
		cov = NewCoverage()
	}
	return &Prefix{Coverage: cov, PerRun: prefixPerRun, Window: DefaultOrderWindow, SelectWindow: DefaultSelectWindow,
		MaxQueued: 1, Rand: rand.New(rand.NewPCG(seed, 0x707265666978))}
}

// Name implements Strategy.
func (p *Prefix) Name() string { return "prefix" }

// Energy is how many new signatures the runs of mutation key and of its descendants found.
func (p *Prefix) Energy(key string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.energy[key]
}

// Next implements Strategy: it adds the run's signature to the coverage; a new signature
// credits the prefix that produced the run and its ancestors, and earns the run PerRun
// mutations; a run from a prefix with energy gets up to PerRun more.
func (p *Prefix) Next(r *Run) []Mutation {
	p.mu.Lock()
	defer p.mu.Unlock()
	r.Prepare()
	if p.queued == nil {
		p.queued, p.parent, p.energy = map[string]int{}, map[string]string{}, map[string]int{}
	}
	perRun := orDefault(p.PerRun, prefixPerRun)
	n := 0
	if p.Coverage.Add(Signature(r)) {
		n = perRun
		for k, depth := r.Origin, 0; k != "" && depth < prefixAncestors; k, depth = p.parent[k], depth+1 {
			p.energy[k]++
		}
	}
	n += min(p.energy[r.Origin], perRun)
	if n == 0 || incomplete(r) {
		return nil
	}
	lin := linear(r)
	var out []Mutation
	for attempts := 0; len(out) < n && attempts < prefixAttemptsX*n && !r.Late(); attempts++ {
		d, ok := randomDecision(r, lin, p.Rand)
		if !ok {
			continue
		}
		if err := validDecision(r, lin, d); err != nil {
			continue
		}
		events := append(slices.Clone(lin[:d.Prefix]), d.Then...)
		if holdsPastTimeLimit(r, events) {
			continue
		}
		var override map[int]int
		if d.Select >= 0 {
			override = map[int]int{d.Select: d.Case}
		}
		s := orderSchedule(r, events, override, orDefault(p.Window, DefaultOrderWindow), orDefault(p.SelectWindow, DefaultSelectWindow))
		if s.IsFree() {
			continue
		}
		key, ok := keyOf(p.Name(), s)
		if !ok || p.queued[key] >= max(p.MaxQueued, 1) || (r.Proposed != nil && r.Proposed(key)) {
			continue // proposed already, by this campaign or an earlier one
		}
		p.queued[key]++
		p.parent[key] = r.Origin
		out = append(out, Mutation{Strategy: p.Name(), Key: key, Schedule: s, Note: decisionNote(r, lin, d)})
	}
	return out
}

// decisionNote describes a decision for people.
func decisionNote(r *Run, lin []int, d Decision) string {
	head := fmt.Sprintf("replay %d operations, then ", d.Prefix)
	switch {
	case d.What == "select":
		e := &r.Trace.Events[d.Select]
		p := r.Trace.Position(e.Pos)
		pos, sends := schedule.Pos{File: p.File, Line: p.Line}, caseDirections(e)
		return head + fmt.Sprintf("%s takes %s instead of %s", shortOp(r.Names.Ops[d.Select]), caseNote(pos, sends, d.Case),
			caseNote(pos, sends, recordedCase(e)))
	case d.What == "order" && d.Prefix < len(lin):
		return head + fmt.Sprintf("%s before %s", shortOp(r.Names.Ops[d.Then[0]]), shortOp(r.Names.Ops[lin[d.Prefix]]))
	case d.What == "match" && d.Prefix < len(lin):
		return head + fmt.Sprintf("%s instead of %s", shortOp(r.Names.Ops[d.Then[0]]), shortOp(r.Names.Ops[lin[d.Prefix]]))
	}
	return head + "admit " + fmt.Sprint(len(d.Then)) + " operations"
}

// randomDecision picks one changed decision of the recorded run: which concurrent operation
// goes next, which send a receive gets its value from, or which case a select takes.
func randomDecision(r *Run, lin []int, rnd *rand.Rand) (Decision, bool) {
	switch rnd.IntN(3) {
	case 0:
		return reorderDecision(r, lin, rnd.IntN(max(len(lin), 1)), rnd)
	case 1:
		return matchDecision(r, lin, rnd)
	default:
		return selectDecision(r, lin, rnd)
	}
}

// validDecision checks that d's operations can be admitted in its order: each is admitted
// once, none must happen before an operation admitted earlier (in the prefix, or earlier in
// Then).
func validDecision(r *Run, lin []int, d Decision) error {
	if d.Prefix < 0 || d.Prefix > len(lin) || len(d.Then) == 0 {
		return fmt.Errorf("empty decision")
	}
	for k, x := range d.Then {
		if inPrefix(r, x, d.Prefix) || slices.Contains(d.Then[:k], x) {
			return fmt.Errorf("event %d admitted twice", x)
		}
		for _, p := range lin[:d.Prefix] {
			if r.HB.HappensBefore(x, p) {
				return fmt.Errorf("event %d must happen before event %d of the prefix", x, p)
			}
		}
	}
	return consistent(r.HB, d.Then)
}

// enabledAt reports whether event y may be admitted right after lin[:at]: nothing it must
// happen after is left in lin[at:] (except the events in ignore).
func enabledAt(r *Run, lin []int, at, y int, ignore ...int) bool {
	for _, m := range lin[at:] {
		if m != y && !slices.Contains(ignore, m) && r.HB.HappensBefore(m, y) {
			return false
		}
	}
	return true
}

// ReorderDecisions lists the operations that could go next instead of lin[at]: concurrent
// with it, in another goroutine, enabled after lin[:at], within the lookahead.
func ReorderDecisions(r *Run, lin []int, at int) []Decision {
	r.Prepare()
	if at < 0 || at >= len(lin) {
		return nil
	}
	x := lin[at]
	var out []Decision
	for j := at + 1; j < len(lin) && j <= at+prefixLookahead; j++ {
		y := lin[j]
		if r.Trace.Events[y].G == r.Trace.Events[x].G || !r.HB.Concurrent(x, y) || !enabledAt(r, lin[:j], at, y) {
			continue
		}
		out = append(out, Decision{What: "order", Prefix: at, Then: []int{y}, Select: -1})
	}
	return out
}

func reorderDecision(r *Run, lin []int, at int, rnd *rand.Rand) (Decision, bool) {
	ds := ReorderDecisions(r, lin, at)
	if len(ds) == 0 {
		return Decision{}, false
	}
	return ds[rnd.IntN(len(ds))], true
}

// MatchDecisions lists, for the receive event recv, the other sends it could have received
// from: replay up to its recorded send, admit the other send and then (when nothing else it
// needs is missing) the receive.
func MatchDecisions(r *Run, lin []int, recv int) []Decision {
	r.Prepare()
	t := r.Trace
	e := &t.Events[recv]
	if chanDir(e) != -1 || !e.Completed() || seqOf(e) == 0 {
		return nil
	}
	obj := object(e)
	send := -1
	var others []int
	for i := range t.Events {
		o := &t.Events[i]
		if i == recv || object(o) != obj || chanDir(o) != 1 || !r.Names.Schedulable(i) {
			continue
		}
		if o.Completed() && seqOf(o) == seqOf(e) {
			send = i
		} else {
			others = append(others, i)
		}
	}
	if send < 0 {
		return nil
	}
	at := r.rank[send]
	if at < 0 || at > r.rank[recv] {
		return nil
	}
	var out []Decision
	for _, s2 := range others {
		if inPrefix(r, s2, at) || t.Events[s2].G == t.Events[send].G || !r.HB.Concurrent(send, s2) || r.HB.HappensBefore(recv, s2) ||
			!enabledAt(r, lin, at, s2) {
			continue
		}
		then := []int{s2}
		if enabledAt(r, lin, at, recv, send, s2) {
			then = append(then, recv)
		}
		out = append(out, Decision{What: "match", Prefix: at, Then: then, Select: -1})
	}
	return out
}

func matchDecision(r *Run, lin []int, rnd *rand.Rand) (Decision, bool) {
	var recvs []int
	for _, i := range lin {
		if chanDir(&r.Trace.Events[i]) == -1 {
			recvs = append(recvs, i)
		}
	}
	if len(recvs) == 0 {
		return Decision{}, false
	}
	ds := MatchDecisions(r, lin, recvs[rnd.IntN(len(recvs))])
	if len(ds) == 0 {
		return Decision{}, false
	}
	return ds[rnd.IntN(len(ds))], true
}

// SelectDecisions lists, for a select event, its cases with a possible partner as new choices:
// replay up to the select, then admit it preferring that case.
func SelectDecisions(r *Run, lin []int, sel int) []Decision {
	r.Prepare()
	at := r.rank[sel]
	if at < 0 || r.Trace.Events[sel].Kind != trace.KindSelect {
		return nil
	}
	var out []Decision
	for _, c := range r.SelectPartners[sel] {
		if c != recordedCase(&r.Trace.Events[sel]) {
			out = append(out, Decision{What: "select", Prefix: at, Then: []int{sel}, Select: sel, Case: c})
		}
	}
	if r.Trace.Events[sel].Flags.Has(trace.FlagNonBlocking) && recordedCase(&r.Trace.Events[sel]) != schedule.CaseDefault {
		out = append(out, Decision{What: "select", Prefix: at, Then: []int{sel}, Select: sel, Case: schedule.CaseDefault})
	}
	return out
}

func selectDecision(r *Run, lin []int, rnd *rand.Rand) (Decision, bool) {
	var sels []int
	for _, i := range lin {
		if r.Trace.Events[i].Kind == trace.KindSelect {
			sels = append(sels, i)
		}
	}
	if len(sels) == 0 {
		return Decision{}, false
	}
	ds := SelectDecisions(r, lin, sels[rnd.IntN(len(sels))])
	if len(ds) == 0 {
		return Decision{}, false
	}
	return ds[rnd.IntN(len(ds))], true
}
