package analysis

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goweave/goweave/analysis/selectcase"
	"github.com/goweave/goweave/analysis/trace"
)

// The order of two operations on one object as the cause of a flaky failure. A check made
// before another goroutine's write under the same lock, a job's removal sent before its
// queued run asked for it: the test fails at its assertion, far from the two lines whose
// order decided it, and nothing in the failing run alone says which of its thousands of
// orders mattered (one failing run against one passing one differs in dozens).
//
// Each run is summarized (OrderOf) by, per object (channel, mutex, atomic word, WaitGroup,
// ...) and per goroutine, the source lines that reached it in the order they first did, up
// to the test's first reported failure (as for SelectChoicesOf): pairs "x before y". A
// select counts at the line of the case it took, so that a loop's select that received a
// removal before a request tells them apart, and a receive knows the line whose send it
// got. Objects and goroutines are named by ids that differ between runs, so a pair is by
// lines. A run "has x before y" when some object or goroutine saw x first and y after, or
// when x ran and y did not run at all (the failure came first). OrderCauses keeps a pair
// only on a strong split: at least half of the failing runs (and at least minCauseRuns)
// have x before y (a test's failing runs may fail in two ways, one subtest's timing and
// another's bug; a third will do when the split's chance below is at most maxWeakCauseP),
// at most 10% of the passing runs do, at least half of the passing runs
// have y before x (or y without x: lines only failing runs reach are the failure's path,
// not an order), those failing and passing runs number at least minCauseEvidence together,
// and the split is unlikely by chance (orderCauseP, the one-sided Fisher exact test of the
// 2x2 table of outcome against order, at most maxCauseP). An order unrelated to the outcome
// (two goroutines racing in each run, a failure from a random number) goes both ways in
// failing and passing runs alike and is never named.

// maxOrderPairs bounds the distinct pairs of lines kept per test (a run's pair beyond it is
// not kept, in any run). A run's pairs are a bitset over them: runs of tens of thousands of
// events (two subtests' worth) keep every object's pairs, not the first objects' only.
const maxOrderPairs = 1 << 18

// goroutineObj marks a goroutine's id as an object of its own: its lines' order (object
// ids are addresses, below it).
const goroutineObj = 1 << 63

// receiveSide marks a channel's receiving side as an object of its own (addresses are
// below it): of a send and a receive, whichever arrived first waited for the other, and the
// receive got its value from the channel's order of sends (and of a close) either way, so
// which side came first says only which goroutine was slower, never an order the program
// saw (ccache: Clear's wait on done and the worker's reply, named as the cause of a failure
// the worker's select order decided). The orders of the sends, and of the receives, among
// themselves stay.
const receiveSide = 1 << 62

// maxOrderLinesPerObject bounds the lines per object whose order is kept.
const maxOrderLinesPerObject = 24

// maxCauseP is the largest chance of the split, were the order unrelated to the outcome,
// for a pair to be named.
const maxCauseP = 0.01

// maxWeakCauseP is the largest chance of the split for a pair that only a third (not half)
// of the failing runs have: a test's failing runs that fail some other way too (gocron:
// the schedule outlasting the test's sleep without timing evidence, another subtest) leave
// the bug's order in fewer than half of them, and stronger evidence must make up for it
// (12 of 29 failing runs and none of 22 passing: p = 3.3e-4; a third of 12 failing runs
// against none of 20 passing, p = 0.014, is not named).
const maxWeakCauseP = 0.001

// OrderLines interns the lines of a test's runs, so that runs share the lines' names. Not
// safe for concurrent use.
type OrderLines struct {
	ids     map[SelectSite]uint32
	lines   []SelectSite
	ops     []string          // the operation first seen at each line: "Lock", "send", ...
	funcs   []string          // the function of each line
	pairIDs map[uint64]uint32 // x<<32|y: x before y
	pairs   []uint64
	onObj   bitset          // the pairs one object saw; the others, one goroutine only
	cases   map[caseKey]int // a select's case's source line (0: not found)
	// sentFrom is, per receiving line, the line of the send whose value it received first
	// (a removal received at the scheduler's loop was sent at the remover's line)
	sentFrom map[uint32]uint32
	// settled is, per pair, the mean index of the event at which a run first had the pair
	// (the later line's arrival); firstRan, per line, of the event at which it first ran
	settled, firstRan means
}

type caseKey struct {
	site  SelectSite
	k, n  int
	sends uint64
}

// caseLine returns the source line of case k of the select of ev at site: which case a
// select took tells a removal from a request that one loop's select receives.
func (ls *OrderLines) caseLine(site SelectSite, ev *trace.Event) int {
	key := caseKey{site: site, k: int(ev.A), n: len(ev.Cases)}
	sends := make([]bool, len(ev.Cases))
	for i, c := range ev.Cases {
		sends[i] = c.Send
		if c.Send && i < 64 {
			key.sends |= 1 << i
		}
	}
	if line, ok := ls.cases[key]; ok {
		return line
	}
	if ls.cases == nil {
		ls.cases = map[caseKey]int{}
	}
	line := 0
	if sel, err := selectcase.Find(site.File, site.Line, sends); err == nil {
		if c, ok := sel.Source(int(ev.A)); ok {
			line = c.Line
		}
	}
	ls.cases[key] = line
	return line
}

// bitset is a set of small integers.
type bitset []uint64

func (b bitset) has(i uint32) bool { return int(i/64) < len(b) && b[i/64]&(1<<(i%64)) != 0 }

func (b *bitset) add(i uint32) {
	for int(i/64) >= len(*b) {
		*b = append(*b, 0)
	}
	(*b)[i/64] |= 1 << (i % 64)
}

// each calls f with each member of b.
func (b bitset) each(f func(uint32)) {
	for w, word := range b {
		for ; word != 0; word &= word - 1 {
			f(uint32(w*64 + bits.TrailingZeros64(word)))
		}
	}
}

// pairID returns the id of x before y, adding it when add is set; ok is false when it has
// none.
func (ls *OrderLines) pairID(x, y uint32, add bool) (uint32, bool) {
	p := uint64(x)<<32 | uint64(y)
	if id, ok := ls.pairIDs[p]; ok {
		return id, true
	}
	if !add || len(ls.pairs) >= maxOrderPairs {
		return 0, false
	}
	if ls.pairIDs == nil {
		ls.pairIDs = map[uint64]uint32{}
	}
	id := uint32(len(ls.pairs))
	ls.pairIDs[p] = id
	ls.pairs = append(ls.pairs, p)
	return id, true
}

func (ls *OrderLines) id(s SelectSite, op, fn string) uint32 {
	if ls.ids == nil {
		ls.ids = map[SelectSite]uint32{}
	}
	if id, ok := ls.ids[s]; ok {
		return id
	}
	id := uint32(len(ls.lines))
	ls.ids[s] = id
	ls.lines = append(ls.lines, s)
	ls.ops = append(ls.ops, op)
	ls.funcs = append(ls.funcs, fn)
	return id
}

// RunOrder is a run's summary: the lines that ran and the pairs of lines in the order one
// object saw them, as sets of the OrderLines' ids.
type RunOrder struct {
	ran, before bitset
	testRan     bitset // the lines a test's goroutine ran (rule_cutpath.go)
	cut         bool   // summarized up to a failing testing.T call
}

// has reports whether r has x before y (pair id xy, ok when it has one): an object saw them
// in that order, or x ran and y never did.
func (r RunOrder) has(x, y, xy uint32, ok bool) bool {
	return (ok && r.before.has(xy)) || (r.ran.has(x) && !r.ran.has(y))
}

// orderChanSeq returns the channel and sequence number of a completed value send or receive
// (a select's chosen one), to pair a receive with its send.
func orderChanSeq(ev *trace.Event) (ch, seq uint64, send, ok bool) {
	switch ev.Kind {
	case trace.KindChanSend, trace.KindChanRecv:
		return ev.Obj, ev.A, ev.Kind == trace.KindChanSend, ev.A != 0
	case trace.KindSelect:
		if ev.A < uint64(len(ev.Cases)) && ev.B != 0 && !ev.Flags.Has(trace.FlagClosed) {
			c := ev.Cases[ev.A]
			return c.Obj, ev.B, c.Send, true
		}
	}
	return 0, 0, false, false
}

// orderOp names what an event did, for the messages.
func orderOp(ev *trace.Event) string {
	switch ev.Kind {
	case trace.KindChanSend:
		return "send"
	case trace.KindChanRecv:
		return "receive"
	case trace.KindChanClose:
		return "close"
	case trace.KindSelect:
		if ev.A < uint64(len(ev.Cases)) && ev.Cases[ev.A].Send {
			return "select's send"
		}
		return "select's receive"
	case trace.KindLock, trace.KindTryLock:
		return "Lock"
	case trace.KindUnlock:
		return "Unlock"
	case trace.KindRLock, trace.KindTryRLock:
		return "RLock"
	case trace.KindRUnlock:
		return "RUnlock"
	case trace.KindOnceDo:
		return "Once.Do"
	case trace.KindWgAdd:
		return "WaitGroup.Add"
	case trace.KindWgDone:
		return "WaitGroup.Done"
	case trace.KindWgWait:
		return "WaitGroup.Wait"
	case trace.KindCondWait:
		return "Cond.Wait"
	case trace.KindCondSignal:
		return "Cond.Signal"
	case trace.KindCondBroadcast:
		return "Cond.Broadcast"
	case trace.KindAtomicLoad:
		return "atomic load"
	case trace.KindAtomicStore:
		return "atomic store"
	case trace.KindAtomicRMW:
		return "atomic update"
	case trace.KindTimerSet:
		return "timer set"
	case trace.KindTimerFire:
		return "timer fire"
	}
	return ""
}

// OrderOf summarizes tr (see the top of this file); keep says which files' lines count
// (the module's: the standard library's lines are not the user's to reorder).
func (ls *OrderLines) OrderOf(tr *trace.Trace, keep func(file string) bool) RunOrder {
	if tr == nil {
		return RunOrder{}
	}
	until := ^uint64(0)
	for i := range tr.Events {
		if ev := &tr.Events[i]; ev.Kind == trace.KindTestUse && failingMethod(ev.A) {
			until = min(until, ev.Pre)
		}
	}
	testGs := testGoroutines(tr)
	type reach struct {
		at    uint64 // when the line first asked for the object
		line  uint32
		event int // the index of that event
	}
	objs := map[uint64][]reach{}
	var order []uint64      // objects in first-seen order
	ran := map[uint32]int{} // line: the index of its first event
	testRan := map[uint32]bool{}
	kept := map[string]bool{}
	type recvAt struct {
		line    uint32
		ch, seq uint64
	}
	sentAt := map[[2]uint64]uint32{}
	var received []recvAt
	for i := range tr.Events {
		ev := &tr.Events[i]
		op := orderOp(ev)
		obj := ev.Obj
		if ev.Kind == trace.KindSelect {
			// the chosen case's channel: what the select did to which object
			if ev.A >= uint64(len(ev.Cases)) {
				continue
			}
			obj = ev.Cases[ev.A].Obj
		}
		at := ev.Pre
		if at == 0 || (ev.Post != 0 && (ev.Kind == trace.KindLock || ev.Kind == trace.KindRLock)) {
			// a lock is reached when it is taken: of two goroutines asking for one mutex,
			// the one that got it first did its check first, whichever asked first
			at = ev.Post
		}
		if op == "" || obj == 0 || at == 0 || at > until {
			continue
		}
		p := tr.Position(ev.Pos)
		if p.File == "" {
			continue
		}
		k, seen := kept[p.File]
		if !seen {
			k = keep == nil || keep(p.File)
			kept[p.File] = k
		}
		if !k {
			continue
		}
		site := SelectSite{p.File, p.Line}
		if ev.Kind == trace.KindSelect {
			if line := ls.caseLine(site, ev); line > 0 {
				site.Line = line
			}
		}
		id := ls.id(site, op, enclosingFunc(p.Func))
		if _, ok := ran[id]; !ok {
			ran[id] = i
		}
		if testGs[ev.G] {
			testRan[id] = true
		}
		if ch, seq, send, ok := orderChanSeq(ev); ok {
			if send {
				sentAt[[2]uint64{ch, seq}] = id
			} else {
				received = append(received, recvAt{id, ch, seq})
			}
		}
		// the object's order, and the goroutine's: a loop that received a removal before a
		// request, on two channels, did them in that order
		if op == "receive" || op == "select's receive" {
			obj |= receiveSide
		}
		for _, o := range []uint64{obj, ev.G | goroutineObj} {
			if o == goroutineObj {
				continue
			}
			rs, ok := objs[o]
			if !ok {
				order = append(order, o)
			}
			j := slices.IndexFunc(rs, func(r reach) bool { return r.line == id })
			switch {
			case j >= 0:
				if at < rs[j].at {
					rs[j].at, rs[j].event = at, i
				}
			case len(rs) < maxOrderLinesPerObject:
				objs[o] = append(rs, reach{at, id, i})
			}
		}
	}
	for _, r := range received {
		if from, ok := sentAt[[2]uint64{r.ch, r.seq}]; ok {
			if _, named := ls.sentFrom[r.line]; !named {
				if ls.sentFrom == nil {
					ls.sentFrom = map[uint32]uint32{}
				}
				ls.sentFrom[r.line] = from
			}
		}
	}
	out := RunOrder{cut: until != ^uint64(0)}
	for id, i := range ran {
		out.ran.add(id)
		ls.firstRan.add(id, i)
	}
	for id := range testRan {
		out.testRan.add(id)
	}
	settled := map[uint32]int{} // pair: the event at which this run first had it
	for _, obj := range order {
		rs := objs[obj]
		slices.SortStableFunc(rs, func(a, b reach) int { return cmp.Compare(a.at, b.at) })
		for i, a := range rs {
			for _, b := range rs[i+1:] {
				if a.at == b.at {
					continue
				}
				if id, ok := ls.pairID(a.line, b.line, true); ok {
					if e, seen := settled[id]; !seen || b.event < e {
						settled[id] = b.event
					}
					out.before.add(id)
					if obj&goroutineObj == 0 {
						ls.onObj.add(id)
					}
				}
			}
		}
	}
	for id, e := range settled {
		ls.settled.add(id, e)
	}
	return out
}

// means accumulates event indices per id, for their mean.
type means struct {
	sum []int64
	n   []int32
}

func (m *means) add(id uint32, v int) {
	for int(id) >= len(m.sum) {
		m.sum, m.n = append(m.sum, 0), append(m.n, 0)
	}
	m.sum[id] += int64(v)
	m.n[id]++
}

// mean is the mean of id's values; ok is false when it has none.
func (m *means) mean(id uint32) (float64, bool) {
	if int(id) >= len(m.sum) || m.n[id] == 0 {
		return 0, false
	}
	return float64(m.sum[id]) / float64(m.n[id]), true
}

// OrderCause is a pair of lines whose order tells a test's failing runs from its passing
// ones: First before Then in the failing runs.
type OrderCause struct {
	First, Then                                            SelectSite
	FirstOp, ThenOp                                        string
	ThenRan                                                int // failing runs in which Then ran at all (after First)
	Failing, FailingHad, Passing, PassingHad, PassingOther int
	P                                                      float64 // the split's chance were the order unrelated to the outcome
	// Among names the failing runs compared when not all of them: the subtest they failed in
	Among string
	// FirstSent and ThenSent: for a receive, the send whose value it got (zero: none)
	FirstSent, ThenSent SelectSite
	OnObject            bool // one object saw the two lines (else one goroutine ran both)
	// PassingRan: passing runs that ran First too. A First that no passing run reached is
	// on the failure's path (what the test did once it had gone wrong), not one side of an
	// order both outcomes had: such pairs rank after the others.
	PassingRan   int
	libraryLines int
	// decided is the mean index of the event at which the runs that had the order settled
	// it: a cause comes before its effects
	decided             float64
	firstFunc, thenFunc string
}

// OrderCauses returns the pairs of lines whose order separates the failing runs from the
// passing ones (see the top of this file for the rule), the strongest first: pairs whose
// first line passing runs reached too (an order of two lines both outcomes ran) before
// pairs on the failure's path, then pairs of the library's lines (not _test.go files)
// before pairs with the test's, then by evidence. (amqp091-go: Reconnect's lines past its
// check, which only failing runs reach, were named before its check's Lock against the
// test's Lock on the same mutex, the order that decides the outcome.)
func (ls *OrderLines) OrderCauses(failing, passing []RunOrder) []OrderCause {
	if len(failing) < minCauseRuns || len(passing) == 0 {
		return nil
	}
	// candidates: the failing runs' orders, and the reverse of the passing runs' (their
	// "y before x" may be "x ran, y never did" in the failing runs)
	cand := map[uint32]bool{}
	for _, r := range failing {
		r.before.each(func(id uint32) { cand[id] = true })
	}
	for _, r := range passing {
		r.before.each(func(id uint32) {
			p := ls.pairs[id]
			if rev, ok := ls.pairID(uint32(p), uint32(p>>32), false); ok {
				cand[rev] = true
			} else {
				cand[^id] = true // y before x with no id: named by the complement of x before y's
			}
		})
	}
	need := max(minCauseRuns, (len(failing)+1)/2)
	needWeak := max(minCauseRuns, (len(failing)+2)/3)
	testPath := testPathLines(passing)
	var out []OrderCause
	for id := range cand {
		var x, y uint32
		if int(id) < len(ls.pairs) {
			x, y = uint32(ls.pairs[id]>>32), uint32(ls.pairs[id])
		} else {
			p := ls.pairs[^id]
			x, y = uint32(p), uint32(p>>32)
		}
		xy, okxy := ls.pairID(x, y, false)
		yx, okyx := ls.pairID(y, x, false)
		c := OrderCause{Failing: len(failing), Passing: len(passing)}
		missed := 0
		for _, r := range failing {
			if r.hasFailing(x, y, xy, okxy, testPath) {
				c.FailingHad++
				if r.ran.has(y) {
					c.ThenRan++
				}
			} else if missed++; len(failing)-missed < needWeak {
				break
			}
		}
		if c.FailingHad < needWeak {
			continue
		}
		// when the order was settled: the pair's mean, or for x with y never run, x's
		var settled bool
		if okxy {
			c.decided, settled = ls.settled.mean(xy)
		}
		if !settled {
			c.decided, _ = ls.firstRan.mean(x)
		}
		for _, r := range passing {
			if r.has(x, y, xy, okxy) {
				c.PassingHad++
			} else if r.has(y, x, yx, okyx) {
				c.PassingOther++
			}
			if r.ran.has(x) {
				c.PassingRan++
			}
		}
		// most passing runs had the other order: lines only the failing runs reach (the
		// failure's own path) are not an order of the passing runs
		if 10*c.PassingHad > len(passing) || 2*c.PassingOther < len(passing) || c.FailingHad+c.PassingOther < minCauseEvidence {
			continue
		}
		c.P = orderCauseP(c.FailingHad, len(failing), c.PassingHad, len(passing))
		if c.P > maxCauseP || (c.FailingHad < need && c.P > maxWeakCauseP) {
			continue
		}
		c.First, c.Then = ls.lines[x], ls.lines[y]
		c.FirstOp, c.ThenOp = ls.ops[x], ls.ops[y]
		c.firstFunc, c.thenFunc = ls.funcs[x], ls.funcs[y]
		if from, ok := ls.sentFrom[x]; ok {
			c.FirstSent = ls.lines[from]
		}
		if from, ok := ls.sentFrom[y]; ok {
			c.ThenSent = ls.lines[from]
		}
		c.OnObject = okxy && ls.onObj.has(xy) || okyx && ls.onObj.has(yx)
		for _, s := range []SelectSite{c.First, c.Then} {
			if !strings.HasSuffix(s.File, "_test.go") {
				c.libraryLines++
			}
		}
		out = append(out, c)
	}
	// Orders both outcomes ran first (PassingRan), then orders whose two lines both ran in
	// the failing runs: "x while y had not run yet" is what a failing path leaves out (the
	// executor's Done where a passing run sent from the job it ran first), settled only when
	// the run ended, and its x's first run is no time of decision to compare with an order
	// that was settled. Then the earliest order: once a goroutine took the failing path, its
	// later operations (the goroutine's own order, the locks its path takes) split the runs
	// as cleanly as the order that sent it there, and come after it. Then the library's lines
	// before the test's.
	slices.SortFunc(out, func(a, b OrderCause) int {
		return cmp.Or(cmp.Compare(min(b.PassingRan, 1), min(a.PassingRan, 1)),
			cmp.Compare(min(b.ThenRan, 1), min(a.ThenRan, 1)),
			cmp.Compare(a.decided, b.decided),
			cmp.Compare(b.libraryLines, a.libraryLines),
			cmp.Compare(b.FailingHad+b.PassingOther, a.FailingHad+a.PassingOther),
			cmp.Compare(a.P, b.P),
			cmp.Compare(b.ThenRan, a.ThenRan), // an order both lines ran in says more than a line that never ran
			cmp.Compare(a.First.File, b.First.File), cmp.Compare(a.First.Line, b.First.Line),
			cmp.Compare(a.Then.File, b.Then.File), cmp.Compare(a.Then.Line, b.Then.Line))
	})
	// one pair per line, and per pair of functions: the next pairs of a named line, or the
	// Unlocks of the Locks named, say the same thing again
	named := map[SelectSite]bool{}
	funcs := map[[2]string]bool{}
	kept := out[:0]
	for _, c := range out {
		fs := [2]string{c.firstFunc, c.thenFunc}
		if named[c.First] || named[c.Then] || (fs != [2]string{} && funcs[fs]) {
			continue
		}
		named[c.First], named[c.Then], funcs[fs] = true, true, true
		kept = append(kept, c)
	}
	return kept
}

// orderCauseP is the one-sided Fisher exact test of the split: the chance that, of the
// failing+passing runs, had+passHad of which have the order, at least had fall among the
// failing ones, were the order unrelated to the outcome.
func orderCauseP(had, failing, passHad, passing int) float64 {
	n, k := failing+passing, had+passHad
	lc := func(n, r int) float64 {
		a, _ := math.Lgamma(float64(n + 1))
		b, _ := math.Lgamma(float64(r + 1))
		c, _ := math.Lgamma(float64(n - r + 1))
		return a - b - c
	}
	total := lc(n, k)
	p := 0.0
	for i := had; i <= min(k, failing); i++ {
		if k-i > passing {
			continue
		}
		p += math.Exp(lc(failing, i) + lc(passing, k-i) - total)
	}
	return min(p, 1)
}

// Describe says what c shows, for a finding's message, and gives its two lines as related
// positions.
func (c OrderCause) Describe() (string, []Position) {
	at := func(s SelectSite) string { return fmt.Sprintf("%s:%d", filepath.Base(s.File), s.Line) }
	sent := func(s SelectSite) string {
		if s.File == "" {
			return ""
		}
		return " (of the send at " + at(s) + ")"
	}
	then := fmt.Sprintf("the %s at %s%s", c.ThenOp, at(c.Then), sent(c.ThenSent))
	how := "before"
	if c.ThenRan == 0 {
		how, then = "while", then+" had not run yet"
	} else if c.ThenRan < c.FailingHad {
		then += " (or that had not run yet)"
	}
	where := "in one goroutine"
	if c.OnObject {
		where = "on one " + orderObject(c.FirstOp)
	}
	among := ""
	if c.Among != "" {
		among = " of " + c.Among
	}
	msg := fmt.Sprintf("the %s at %s came %s %s, %s, in %s failing runs%s and in ", c.FirstOp, at(c.First)+sent(c.FirstSent), how, then, where, ofRuns(c.FailingHad, c.Failing), among)
	if c.PassingHad == 0 {
		msg += fmt.Sprintf("none of the %d passing runs", c.Passing)
	} else {
		msg += fmt.Sprintf("only %d of the %d passing runs", c.PassingHad, c.Passing)
	}
	msg += fmt.Sprintf(" (%s passing runs had the other order; chance of such a split were the order unrelated to the failure: %s)", ofRuns(c.PassingOther, c.Passing), pText(c.P))
	pos := []Position{
		{Role: fmt.Sprintf("cause: this %s came first when the test failed (%s failing runs, %d of %d passing)", c.FirstOp, ofRuns(c.FailingHad, c.Failing), c.PassingHad, c.Passing),
			File: c.First.File, Line: c.First.Line, Column: LineColumn(c.First.File, c.First.Line)},
		{Role: fmt.Sprintf("this %s came after %s (or not at all) when the test failed, before it when the test passed", c.ThenOp, at(c.First)),
			File: c.Then.File, Line: c.Then.Line, Column: LineColumn(c.Then.File, c.Then.Line)},
	}
	for _, sp := range []struct {
		from, to SelectSite
	}{{c.FirstSent, c.First}, {c.ThenSent, c.Then}} {
		if sp.from.File != "" && sp.from != sp.to {
			pos = append(pos, Position{Role: fmt.Sprintf("sent what %s received", at(sp.to)), File: sp.from.File, Line: sp.from.Line, Column: LineColumn(sp.from.File, sp.from.Line)})
		}
	}
	return msg, pos
}

// enclosingFunc is the declared function fn is part of: a closure's (pkg.F.func1) and a
// deferred call's wrapper (pkg.F.deferwrap1) are F's.
func enclosingFunc(fn string) string {
	for _, part := range []string{".func", ".deferwrap", ".gowrap"} {
		if i := strings.Index(fn, part); i > 0 {
			fn = fn[:i]
		}
	}
	return fn
}

// orderObject names the kind of object an operation acts on.
func orderObject(op string) string {
	switch {
	case strings.Contains(strings.ToLower(op), "lock"):
		return "mutex"
	case strings.HasPrefix(op, "WaitGroup"):
		return "WaitGroup"
	case strings.HasPrefix(op, "Cond"):
		return "Cond"
	case strings.HasPrefix(op, "Once"):
		return "Once"
	case strings.HasPrefix(op, "atomic"):
		return "atomic value"
	case strings.HasPrefix(op, "timer"):
		return "timer"
	}
	return "channel"
}

// pText writes a small probability briefly.
func pText(p float64) string {
	if p < 1e-6 {
		return "p < 1e-6"
	}
	return fmt.Sprintf("p = %.2g", p)
}
