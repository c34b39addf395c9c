package mutate

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// GoPie parameters as published (prior-art.md).
const (
	GoPieBound       = 3   // substitute and augment apply to chains of at most this length
	GoPieMutateBound = 128 // stop mutating a chain once this many variants exist
	GoPieEnergy      = 100 // a further mutation round happens with probability energy/200
	// GoPieMaxChain cuts longer chains into pieces: a ping-pong of n operations between two
	// goroutines is one chain of n, whose n-1 flips (each a copy of the chain) cost n^2
	// (20k operations: 3 GB and minutes per run).
	GoPieMaxChain = 16
)

// GoPie is the order-fuzzing strategy: it cuts the recorded run into scheduling chains,
// mutates them (abridge, flip, substitute, augment), drops the variants that contradict the
// recorded happens-before, and replays each survivor after its prerequisites.
type GoPie struct {
	Bound       int // default GoPieBound
	MutateBound int // default GoPieMutateBound
	// Energy in [0, 200]: the probability of another round of mutation of a chain is
	// Energy/200 (ADVOCATE breaks when rand%200 < energy with energy fixed at 100: the same
	// 1/2); 0 means a single round.
	Energy       int
	MaxChains    int           // chains mutated per run (default 8)
	MaxMutations int           // schedules proposed per run (default 32)
	MaxRel       int           // Rel2 sets are truncated to this many nearest operations (default 64)
	MaxQueued    int           // how often one schedule may be proposed (default 1)
	Window       time.Duration // order window (default DefaultOrderWindow)
	SelectWindow time.Duration // window of the select preferences that pin replayed selects
	Rand         *rand.Rand

	// Pruned counts mutated chains dropped because they contradict the recorded
	// happens-before; Proposed counts the schedules returned.
	Pruned, Proposed int

	mu     sync.Mutex
	queued map[string]int
}

// NewGoPie returns a GoPie strategy with the published parameters.
func NewGoPie(seed uint64) *GoPie {
	return &GoPie{
		Bound: GoPieBound, MutateBound: GoPieMutateBound, Energy: GoPieEnergy,
		MaxChains: 8, MaxMutations: 32, MaxRel: 64, MaxQueued: 1,
		Window: DefaultOrderWindow, SelectWindow: DefaultSelectWindow,
		Rand: rand.New(rand.NewPCG(seed, 0x676f706965)),
	}
}

// Name implements Strategy.
func (g *GoPie) Name() string { return "gopie" }

// Next implements Strategy. Runs whose replay diverged yield nothing (GoPie's feedback:
// a failed replay is not mutated further).
func (g *GoPie) Next(r *Run) []Mutation {
	g.mu.Lock()
	defer g.mu.Unlock()
	if r.Diverged || incomplete(r) {
		return nil
	}
	r.Prepare()
	if g.queued == nil {
		g.queued = map[string]int{}
	}
	lin := linear(r)
	rel := NewRelations(r, lin, orDefault(g.MaxRel, 64))
	chains := cut(Chains(r), GoPieMaxChain)
	g.Rand.Shuffle(len(chains), func(i, j int) { chains[i], chains[j] = chains[j], chains[i] })
	if n := orDefault(g.MaxChains, 8); len(chains) > n {
		chains = chains[:n]
	}
	var out []Mutation
	for _, c := range chains {
		variants := g.MutateChain(rel, c)
		g.Rand.Shuffle(len(variants), func(i, j int) { variants[i], variants[j] = variants[j], variants[i] })
		for _, v := range variants {
			if len(out) >= orDefault(g.MaxMutations, 32) || r.Late() {
				return out
			}
			events, err := replayOrder(r, lin, v)
			if err != nil {
				g.Pruned++
				continue
			}
			if holdsPastTimeLimit(r, events) {
				continue
			}
			s := orderSchedule(r, events, nil, orDefault(g.Window, DefaultOrderWindow), orDefault(g.SelectWindow, DefaultSelectWindow))
			key, ok := keyOf(g.Name(), s)
			if !ok || g.queued[key] >= max(g.MaxQueued, 1) || (r.Proposed != nil && r.Proposed(key)) {
				continue // proposed already, by this campaign or an earlier one
			}
			g.queued[key]++
			g.Proposed++
			out = append(out, Mutation{Strategy: g.Name(), Key: key, Schedule: s, Note: chainNote(r, c, v)})
		}
	}
	return out
}

// chainNote describes a mutated chain against the recorded one.
func chainNote(r *Run, recorded, mutated []int) string {
	list := func(c []int) string {
		parts := make([]string, len(c))
		for i, e := range c {
			parts[i] = shortOp(r.Names.Ops[e])
		}
		return strings.Join(parts, ", ")
	}
	return "admit " + list(mutated) + " in this order after their prerequisites (recorded chain: " + list(recorded) + ")"
}

// Chains cuts the recorded run (schedulable operations in completion order) into scheduling
// chains: maximal runs of consecutive operations in which neighbours belong to different
// goroutines.
func Chains(r *Run) [][]int {
	r.Prepare()
	var out [][]int
	var cur []int
	for _, e := range linear(r) {
		if len(cur) > 0 && r.Trace.Events[cur[len(cur)-1]].G == r.Trace.Events[e].G {
			out = append(out, cur)
			cur = nil
		}
		cur = append(cur, e)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// cut splits the chains longer than n into consecutive pieces of at most n.
func cut(chains [][]int, n int) [][]int {
	var out [][]int
	for _, c := range chains {
		for len(c) > n {
			out = append(out, c[:n:n])
			c = c[n:]
		}
		out = append(out, c)
	}
	return out
}

// MutateChain returns the variants of chain c that GoPie's mutation loop produces (without c
// itself), before HB pruning.
func (g *GoPie) MutateChain(rel *Relations, c []int) [][]int {
	bound, mutateBound, energy := orDefault(g.Bound, GoPieBound), orDefault(g.MutateBound, GoPieMutateBound), g.Energy
	res := map[string][]int{chainKey(c): c}
	keys := []string{chainKey(c)}
	add := func(ch []int) bool {
		k := chainKey(ch)
		if _, ok := res[k]; ok {
			return false
		}
		res[k] = ch
		keys = append(keys, k)
		return true
	}
	for full := false; !full; {
		grew := false
		for _, k := range slices.Clone(keys) {
			ch := res[k]
			var tset [][]int
			if len(ch) >= 2 {
				a, b := Abridge(ch)
				tset = append(tset, a, b)
				tset = append(tset, Flip(ch)...)
			}
			if len(ch) <= bound && g.Rand.IntN(2) == 1 {
				tset = append(tset, rel.Substitute(ch)...)
			}
			if len(ch) <= bound && g.Rand.IntN(2) == 1 {
				tset = append(tset, rel.Augment(ch)...)
			}
			for _, n := range tset {
				if add(n) {
					grew = true
				}
				if len(res) > mutateBound {
					full = true
					break
				}
			}
			if full {
				break
			}
		}
		if !grew || g.Rand.IntN(200) >= energy {
			break
		}
	}
	out := make([][]int, 0, len(keys)-1)
	for _, k := range keys[1:] {
		out = append(out, res[k])
	}
	return out
}

// Abridge drops the head and, separately, the tail of a chain of length >= 2.
func Abridge(c []int) (withoutHead, withoutTail []int) {
	return slices.Clone(c[1:]), slices.Clone(c[:len(c)-1])
}

// Flip swaps each pair of neighbours, one variant per pair.
func Flip(c []int) [][]int {
	var out [][]int
	for i := 0; i+1 < len(c); i++ {
		n := slices.Clone(c)
		n[i], n[i+1] = n[i+1], n[i]
		out = append(out, n)
	}
	return out
}

// Substitute replaces one operation by a Rel1-related one (its neighbour in its goroutine).
func (rl *Relations) Substitute(c []int) [][]int {
	var out [][]int
	for i, o := range c {
		for _, s := range rl.rel1(o) {
			if slices.Contains(c, s) {
				continue
			}
			n := slices.Clone(c)
			n[i] = s
			out = append(out, n)
		}
	}
	return out
}

// Augment appends a Rel2-related operation of the last one that runs in another goroutine.
func (rl *Relations) Augment(c []int) [][]int {
	last := c[len(c)-1]
	var out [][]int
	for _, a := range rl.rel2(last) {
		if slices.Contains(c, a) || rl.r.Trace.Events[a].G == rl.r.Trace.Events[last].G {
			continue
		}
		out = append(out, append(slices.Clone(c), a))
	}
	return out
}

func chainKey(c []int) string {
	var b strings.Builder
	for i, e := range c {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(e))
	}
	return b.String()
}

// Relations holds GoPie's Rel1 and Rel2 over the schedulable completed operations of a run.
//
// Rule 1: neighbours in one goroutine are Rel1-related. Rule 2: operations on the same
// primitive, consecutive on it, in different goroutines are Rel2-related (CPOP2). Rules 3 and 4
// close Rel2 transitively: Rel2(c) includes Rel2(c') for c' in Rel1(c) or Rel2(c). With
// symmetric neighbour relations that closure is the whole connected part of the program, so
// Rel2(c) is computed breadth first and truncated to the maxRel nearest operations.
type Relations struct {
	r                *Run
	prevG, nextG     map[int]int
	prevObj, nextObj map[int]int
	maxRel           int
	rel2memo         map[int][]int
}

// NewRelations computes Rel1 and the CPOP2 neighbours of the operations in lin (the run's
// schedulable operations in completion order; nil means all of them).
func NewRelations(r *Run, lin []int, maxRel int) *Relations {
	r.Prepare()
	if lin == nil {
		lin = linear(r)
	}
	rl := &Relations{r: r, prevG: map[int]int{}, nextG: map[int]int{}, prevObj: map[int]int{}, nextObj: map[int]int{},
		maxRel: maxRel, rel2memo: map[int][]int{}}
	lastG := map[uint64]int{}
	lastObj := map[uint64]int{}
	// Program order is request order; the primitive's order is completion order.
	byPre := slices.Clone(lin)
	slices.SortStableFunc(byPre, func(a, b int) int { return cmpU64(r.Trace.Events[a].Pre, r.Trace.Events[b].Pre) })
	for _, e := range byPre {
		g := r.Trace.Events[e].G
		if p, ok := lastG[g]; ok {
			rl.prevG[e], rl.nextG[p] = p, e
		}
		lastG[g] = e
	}
	for _, e := range lin {
		o := object(&r.Trace.Events[e])
		if o == 0 {
			continue
		}
		if p, ok := lastObj[o]; ok {
			rl.prevObj[e], rl.nextObj[p] = p, e
		}
		lastObj[o] = e
	}
	return rl
}

func (rl *Relations) rel1(c int) []int {
	var out []int
	if p, ok := rl.prevG[c]; ok {
		out = append(out, p)
	}
	if n, ok := rl.nextG[c]; ok {
		out = append(out, n)
	}
	return out
}

func (rl *Relations) cpop2(c int) []int {
	var out []int
	g := rl.r.Trace.Events[c].G
	if p, ok := rl.prevObj[c]; ok && rl.r.Trace.Events[p].G != g {
		out = append(out, p)
	}
	if n, ok := rl.nextObj[c]; ok && rl.r.Trace.Events[n].G != g {
		out = append(out, n)
	}
	return out
}

// rel2 is the (truncated) transitive Rel2 set of c, nearest first.
func (rl *Relations) rel2(c int) []int {
	if s, ok := rl.rel2memo[c]; ok {
		return s
	}
	var out []int
	inOut := map[int]bool{}
	seen := map[int]bool{c: true}
	queue := []int{c}
	for len(queue) > 0 && len(out) < rl.maxRel && len(seen) < 16*rl.maxRel {
		x := queue[0]
		queue = queue[1:]
		for _, y := range rl.cpop2(x) {
			if y != c && !inOut[y] {
				inOut[y] = true
				out = append(out, y)
			}
			if !seen[y] {
				seen[y] = true
				queue = append(queue, y)
			}
		}
		for _, y := range rl.rel1(x) {
			if !seen[y] {
				seen[y] = true
				queue = append(queue, y)
			}
		}
	}
	if len(out) > rl.maxRel {
		out = out[:rl.maxRel]
	}
	rl.rel2memo[c] = out
	return out
}

func orDefault[T int | time.Duration](v, d T) T {
	if v > 0 {
		return v
	}
	return d
}
