package mutate

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// GFuzz parameters (prior-art.md; the window is ours: GFuzz waits 500 ms, ADVOCATE 1 s).
const (
	DefaultSelectWindow = 30 * time.Millisecond
	gfuzzMaxMutations   = 5    // mutations per interesting run = ceil(5*score/maxScore)
	scoreWeight         = 10.0 // weight of created/closed channels, buffer fill, partner cases
	partnerCaseWeight   = 2    // a case with a possible partner is twice as likely to be chosen
	pairDivergence      = 0.5  // a pair count this far (relative) from its mean is interesting
)

// GFuzzFeatures is what GFuzz's feedback looks at in one run. Channels are keyed by their
// make position, pairs by "send position>receive position", selects by position.
type GFuzzFeatures struct {
	Pairs        map[string]int // matched channel operation pairs and how often they happened
	Created      int            // channels created (ChanMake events)
	Closed       int            // successful closes
	CreatedAt    map[string]bool
	ClosedAt     map[string]bool // make positions of channels closed in this run
	NotClosedAt  map[string]bool // make positions of channels still open at the end
	MaxFill      map[string]int  // per make position: largest buffer fill seen
	FillSum      int             // sum over channels of each channel's largest buffer fill
	Chosen       map[string]bool // "select position#case" chosen in this run (-1 = default)
	PartnerCases int             // distinct (select position, case) not taken but with a possible partner
	selects      []selectExec    // select executions in request order
}

type selectExec struct {
	event    int
	pos      schedule.Pos
	chosen   int   // case index, schedule.CaseDefault, or schedule.CaseFree (not completed)
	options  []int // cases that could be preferred instead of chosen
	partners map[int]bool
	sends    []bool // directions of the cases (true = send), for notes
}

// ExtractGFuzz computes the features of run r (Prepare is called).
func ExtractGFuzz(r *Run) *GFuzzFeatures {
	r.Prepare()
	t := r.Trace
	f := &GFuzzFeatures{
		Pairs: map[string]int{}, CreatedAt: map[string]bool{}, ClosedAt: map[string]bool{},
		NotClosedAt: map[string]bool{}, MaxFill: map[string]int{}, Chosen: map[string]bool{},
	}
	pos := func(i int) string { return posKey(t.Position(t.Events[i].Pos)) }
	// Channel identity across runs: the make position.
	chanKey := map[uint64]string{}
	fill := map[uint64]int{}
	closed := map[uint64]bool{}
	sends := map[uint64]map[uint64]int{} // obj -> seq -> event
	for i := range t.Events {
		e := &t.Events[i]
		switch e.Kind {
		case trace.KindChanMake:
			chanKey[e.Obj] = pos(i)
			f.Created++
			f.CreatedAt[pos(i)] = true
		case trace.KindChanClose:
			if !e.Flags.Has(trace.FlagClosed) && !e.Flags.Has(trace.FlagNilChan) && e.Obj != 0 {
				f.Closed++
				closed[e.Obj] = true
			}
		case trace.KindChanSend:
			if e.Completed() && e.C > 0 && int(e.B) > fill[e.Obj] {
				fill[e.Obj] = int(e.B)
			}
		}
		if chanDir(e) == 1 && e.Completed() {
			seq := e.A
			if e.Kind == trace.KindSelect {
				seq = e.B
			}
			if sends[object(e)] == nil {
				sends[object(e)] = map[uint64]int{}
			}
			sends[object(e)][seq] = i
		}
	}
	keyOfChan := func(obj uint64) string {
		if k, ok := chanKey[obj]; ok {
			return k
		}
		return fmt.Sprintf("chan#%d", obj) // made outside user code: not comparable across runs
	}
	for obj := range chanKey {
		if closed[obj] {
			f.ClosedAt[chanKey[obj]] = true
		} else {
			f.NotClosedAt[chanKey[obj]] = true
		}
	}
	for obj, n := range fill {
		k := keyOfChan(obj)
		f.MaxFill[k] = max(f.MaxFill[k], n)
		f.FillSum += n
	}
	// Pairs: the k-th receive on a channel got the k-th send's value.
	for i := range t.Events {
		e := &t.Events[i]
		if chanDir(e) != -1 || !e.Completed() {
			continue
		}
		seq := e.A
		if e.Kind == trace.KindSelect {
			seq = e.B
		}
		if s, ok := sends[object(e)][seq]; ok && seq != 0 {
			f.Pairs[pos(s)+">"+pos(i)]++
		}
	}
	// Selects, in request order (the order in which the runtime counts executions).
	var sels []int
	for i := range t.Events {
		if t.Events[i].Kind == trace.KindSelect && t.Events[i].Pos != 0 {
			sels = append(sels, i)
		}
	}
	slices.SortStableFunc(sels, func(a, b int) int { return cmpU64(t.Events[a].Pre, t.Events[b].Pre) })
	// A select in a loop counts its partner cases once, not once per iteration.
	partnerCases := map[string]bool{}
	for _, i := range sels {
		e := &t.Events[i]
		p := t.Position(e.Pos)
		x := selectExec{event: i, pos: schedule.Pos{File: p.File, Line: p.Line}, chosen: schedule.CaseFree, partners: map[int]bool{}, sends: caseDirections(e)}
		if e.Completed() {
			x.chosen = schedule.CaseDefault
			if c, ok := chosenCase(e); ok {
				x.chosen = c.Index
			}
			f.Chosen[fmt.Sprintf("%s#%d", x.pos, x.chosen)] = true
		}
		for _, c := range r.SelectPartners[i] {
			x.partners[c] = true
			partnerCases[fmt.Sprintf("%s#%d", x.pos, c)] = true
		}
		for _, c := range e.Cases {
			if c.Index != x.chosen {
				x.options = append(x.options, c.Index)
			}
		}
		if e.Flags.Has(trace.FlagNonBlocking) && x.chosen != schedule.CaseDefault {
			x.options = append(x.options, schedule.CaseDefault)
		}
		f.selects = append(f.selects, x)
	}
	f.PartnerCases = len(partnerCases)
	return f
}

func posKey(p trace.Position) string {
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// Score is the HB-extended GFuzz score of a run:
// sum log2(pair count) + 10*created + 10*closed + 10*sum(max buffer fill) + 10*partner cases.
func (f *GFuzzFeatures) Score() float64 {
	s := 0.0
	for _, n := range f.Pairs {
		s += math.Log2(float64(n))
	}
	return s + scoreWeight*float64(f.Created+f.Closed+f.FillSum+f.PartnerCases)
}

// NumMutations is how many mutations an interesting run gets: ceil(5*score/maxScore), and 1
// when every score so far is 0.
func NumMutations(score, maxScore float64) int {
	if maxScore <= 0 {
		return 1
	}
	return int(math.Ceil(gfuzzMaxMutations * score / maxScore))
}

// FlipProbability is the probability that one select execution changes its preferred case:
// max(0.1, 1-(1-0.99)^(1/numSel)), so that with numSel selects at least one flips with
// probability 0.99 while each flips with probability at least 0.1.
func FlipProbability(numSel int) float64 {
	if numSel < 1 {
		return 1
	}
	return math.Max(0.1, 1-math.Pow(1-0.99, 1/float64(numSel)))
}

// GFuzzState is GFuzz's memory across the runs of one test; it is saved as JSON between
// campaigns.
type GFuzzState struct {
	Runs      int                `json:"runs"`
	PairTotal map[string]float64 `json:"pairTotal"` // sum of each pair's count over all runs
	Created   map[string]bool    `json:"created"`
	Closed    map[string]bool    `json:"closed"`
	NotClosed map[string]bool    `json:"notClosed"`
	MaxFill   map[string]int     `json:"maxFill"`
	Chosen    map[string]bool    `json:"chosen"`
	MaxScore  float64            `json:"maxScore"`
	Queued    map[string]int     `json:"queued"` // mutation key -> times queued
}

// NewGFuzzState returns an empty state.
func NewGFuzzState() *GFuzzState {
	return &GFuzzState{
		PairTotal: map[string]float64{}, Created: map[string]bool{}, Closed: map[string]bool{},
		NotClosed: map[string]bool{}, MaxFill: map[string]int{}, Chosen: map[string]bool{}, Queued: map[string]int{},
	}
}

// LoadGFuzzState decodes a state saved with json.Marshal.
func LoadGFuzzState(b []byte) (*GFuzzState, error) {
	s := NewGFuzzState()
	if err := json.Unmarshal(b, s); err != nil {
		return nil, fmt.Errorf("gfuzz state: %w", err)
	}
	// null maps in the JSON: start them empty
	fresh := NewGFuzzState()
	if s.PairTotal == nil {
		s.PairTotal = fresh.PairTotal
	}
	if s.Created == nil {
		s.Created = fresh.Created
	}
	if s.Closed == nil {
		s.Closed = fresh.Closed
	}
	if s.NotClosed == nil {
		s.NotClosed = fresh.NotClosed
	}
	if s.MaxFill == nil {
		s.MaxFill = fresh.MaxFill
	}
	if s.Chosen == nil {
		s.Chosen = fresh.Chosen
	}
	if s.Queued == nil {
		s.Queued = fresh.Queued
	}
	return s, nil
}

// Interesting returns why f is interesting given the runs seen so far (nil: not interesting).
// It does not change s; Record does.
func (s *GFuzzState) Interesting(f *GFuzzFeatures) []string {
	var why []string
	add := func(format string, args ...any) { why = append(why, fmt.Sprintf(format, args...)) }
	for _, k := range sortedKeys(f.Pairs) {
		n := f.Pairs[k]
		total, seen := s.PairTotal[k]
		if !seen || s.Runs == 0 {
			add("new pair %s", k)
			continue
		}
		mean := total / float64(s.Runs)
		if math.Abs(float64(n)-mean) >= pairDivergence*mean {
			add("pair %s: %d times, mean %.2f", k, n, mean)
		}
	}
	for _, k := range sortedKeys(f.CreatedAt) {
		if !s.Created[k] {
			add("new channel created at %s", k)
		}
	}
	for _, k := range sortedKeys(f.ClosedAt) {
		if !s.Closed[k] {
			add("channel made at %s closed for the first time", k)
		}
	}
	for _, k := range sortedKeys(f.NotClosedAt) {
		if !s.NotClosed[k] {
			add("channel made at %s left open for the first time", k)
		}
	}
	for _, k := range sortedKeys(f.MaxFill) {
		if f.MaxFill[k] > s.MaxFill[k] {
			add("channel made at %s filled to %d (before: %d)", k, f.MaxFill[k], s.MaxFill[k])
		}
	}
	for _, k := range sortedKeys(f.Chosen) {
		if !s.Chosen[k] {
			add("select case %s chosen for the first time", k)
		}
	}
	return why
}

// Record adds f to the state.
func (s *GFuzzState) Record(f *GFuzzFeatures) {
	s.Runs++
	for k, n := range f.Pairs {
		s.PairTotal[k] += float64(n)
	}
	for k := range f.CreatedAt {
		s.Created[k] = true
	}
	for k := range f.ClosedAt {
		s.Closed[k] = true
	}
	for k := range f.NotClosedAt {
		s.NotClosed[k] = true
	}
	for k, n := range f.MaxFill {
		s.MaxFill[k] = max(s.MaxFill[k], n)
	}
	for k := range f.Chosen {
		s.Chosen[k] = true
	}
	s.MaxScore = math.Max(s.MaxScore, f.Score())
}

// GFuzz is the select-fuzzing strategy.
type GFuzz struct {
	State *GFuzzState
	// Window is how long a select waits for its preferred case (default DefaultSelectWindow).
	Window time.Duration
	// MaxQueued caps how often one mutation (by Key) is proposed (default 1: the analysis
	// predicts bugs, so running a schedule again rarely tells more).
	MaxQueued int
	Rand      *rand.Rand

	mu sync.Mutex
}

// NewGFuzz returns a GFuzz strategy with default parameters and a fresh state.
func NewGFuzz(seed uint64) *GFuzz {
	return &GFuzz{State: NewGFuzzState(), Window: DefaultSelectWindow, MaxQueued: 1, Rand: rand.New(rand.NewPCG(seed, 0x6766757a7a))}
}

// Name implements Strategy.
func (g *GFuzz) Name() string { return "gfuzz" }

// Next implements Strategy: it records the run's features and, if the run is interesting,
// proposes ceil(5*score/maxScore) select-preference schedules.
func (g *GFuzz) Next(r *Run) []Mutation {
	g.mu.Lock()
	defer g.mu.Unlock()
	f := ExtractGFuzz(r)
	why := g.State.Interesting(f)
	g.State.Record(f)
	if len(why) == 0 {
		return nil
	}
	var flippable []int
	for i, x := range f.selects {
		if len(x.options) > 0 {
			flippable = append(flippable, i)
		}
	}
	if len(flippable) == 0 {
		return nil
	}
	n := NumMutations(f.Score(), g.State.MaxScore)
	p := FlipProbability(len(flippable))
	var out []Mutation
	for range n {
		if r.Late() {
			break
		}
		s, note := g.mutate(f, flippable, p)
		key, ok := keyOf(g.Name(), s)
		if !ok || g.State.Queued[key] >= max(g.MaxQueued, 1) {
			continue
		}
		g.State.Queued[key]++
		out = append(out, Mutation{Strategy: g.Name(), Key: key, Schedule: s, Note: note})
	}
	return out
}

// mutate builds one schedule: each select execution keeps its recorded case, except that
// flippable ones flip with probability p (at least one flips).
func (g *GFuzz) mutate(f *GFuzzFeatures, flippable []int, p float64) (*schedule.Schedule, string) {
	flip := make(map[int]bool)
	for _, i := range flippable {
		if g.Rand.Float64() < p {
			flip[i] = true
		}
	}
	if len(flip) == 0 {
		flip[flippable[g.Rand.IntN(len(flippable))]] = true
	}
	lists := map[schedule.Pos][]int{}
	var order []schedule.Pos
	var flips []string
	nflips := 0
	for i, x := range f.selects {
		c := x.chosen
		if flip[i] {
			c = pickCase(g.Rand, x.options, x.partners)
			if nflips++; nflips <= 3 { // the note names three; reading the source for more is waste
				flips = append(flips, fmt.Sprintf("select %s:%d execution %d: %s instead of %s",
					filepath.Base(x.pos.File), x.pos.Line, len(lists[x.pos])+1, caseNote(x.pos, x.sends, c), caseNote(x.pos, x.sends, x.chosen)))
			}
		}
		if _, ok := lists[x.pos]; !ok {
			order = append(order, x.pos)
		}
		lists[x.pos] = append(lists[x.pos], c)
	}
	sort.Slice(order, func(i, j int) bool {
		if order[i].File != order[j].File {
			return order[i].File < order[j].File
		}
		return order[i].Line < order[j].Line
	})
	s := &schedule.Schedule{}
	for _, pos := range order {
		cases := trimFree(lists[pos])
		if len(cases) == 1 && cases[0] == schedule.CaseFree {
			continue
		}
		s.Selects = append(s.Selects, schedule.SelectPreference{Pos: pos, Window: g.window(), Cases: cases})
	}
	if nflips > 3 {
		flips = append(flips, fmt.Sprintf("and %d more", nflips-3))
	}
	return s, strings.Join(flips, "; ")
}

func (g *GFuzz) window() time.Duration {
	if g.Window > 0 {
		return g.Window
	}
	return DefaultSelectWindow
}

// pickCase chooses among options (never the recorded case), a case with a possible partner
// having twice the weight of one without.
func pickCase(rnd *rand.Rand, options []int, partners map[int]bool) int {
	total := 0
	for _, c := range options {
		total += caseWeight(c, partners)
	}
	x := rnd.IntN(total)
	for _, c := range options {
		x -= caseWeight(c, partners)
		if x < 0 {
			return c
		}
	}
	return options[len(options)-1]
}

func caseWeight(c int, partners map[int]bool) int {
	if partners[c] {
		return partnerCaseWeight
	}
	return 1
}

// trimFree drops trailing "no preference" entries, which the runtime assumes anyway.
func trimFree(cases []int) []int {
	for len(cases) > 1 && cases[len(cases)-1] == schedule.CaseFree {
		cases = cases[:len(cases)-1]
	}
	return cases
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
