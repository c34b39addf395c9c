package mutate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// A Claim is a predicted bug to confirm: its kind and its positions with their roles, as
// the analysis reported them for the run (the first position is the primary one).
type Claim struct {
	Kind      string
	Positions []ClaimPos
}

// ClaimPos is one position of a Claim.
type ClaimPos struct {
	Role string
	Pos  schedule.Pos
}

// A Rewrite is a schedule that should make a claimed bug happen: the recorded run's
// operations that must come first, then Chain in this order, then a free run.
type Rewrite struct {
	Schedule *schedule.Schedule
	Chain    []int  // the reordered events of the recorded run, in the order they are admitted
	Note     string // what the schedule does, in one line
}

// ConfirmableKinds are the kinds Confirm has a rewrite for. Leaks are not among them: a
// predicted leak needs its partner to happen elsewhere, which an order of recorded
// operations cannot express.
var ConfirmableKinds = []string{"send-on-closed", "recv-on-closed", "negative-waitgroup", "cyclic-deadlock", "mixed-deadlock", "t-used-after-test", "data-race"}

// maxRewrites bounds the candidate schedules of one claim.
const maxRewrites = 4

// Confirm builds the schedules that should make a predicted bug of the recorded run r
// happen, most promising first:
//
//   - send-on-closed, recv-on-closed: the close, then the send (value receive);
//   - negative-waitgroup: the unmatched Done, then the Add it raced with;
//   - cyclic-deadlock: each goroutine of a two-lock cycle takes its first lock, then both
//     request their second; for read-lock recursion: the outer RLock, the writer's Lock,
//     then the inner RLock;
//   - mixed-deadlock: the lock taken around the channel operation, then the partner's Lock;
//   - t-used-after-test: the test's end, then the use of its T;
//   - data-race (an Add from a zero counter racing a Wait): the Add held until the Wait
//     comes, then the Wait, then the Add.
//
// Each chain is admitted after exactly the operations that must happen before it
// (MustHappenBefore), so orders that only the recorded schedule imposed (which goroutine
// locked first, which Add came first) do not hold it back. It fails when the kind has no
// rewrite or no operations of the recorded run match the claim.
func Confirm(r *Run, c Claim) ([]Rewrite, error) {
	r.Prepare()
	if incomplete(r) {
		return nil, fmt.Errorf("the recorded run lost events (trace META dropped): its operations cannot be ordered")
	}
	// A receive made to see the close must not wait for the send it got its value from, a
	// Wait made to come before an Add not for the group's Dones.
	var cut map[int]bool
	switch c.Kind {
	case "recv-on-closed":
		cut = map[int]bool{}
		for _, i := range at(r, c, "", func(e *trace.Event) bool { return e.Kind == trace.KindChanRecv || e.Kind == trace.KindSelect }) {
			cut[i] = true
		}
	case "data-race":
		cut = map[int]bool{}
		for _, i := range at(r, c, roleOf(c, 1, "wait"), func(e *trace.Event) bool { return e.Kind == trace.KindWgWait }) {
			cut[i] = true
		}
	}
	must := &Run{Trace: r.Trace, HB: mustHappenBefore(r.Trace, cut), Names: r.Names, SelectPartners: map[int][]int{}}
	must.Prepare()
	var chains [][]int
	searchCut := "" // said in the notes and the error when a search was bounded
	switch c.Kind {
	case "send-on-closed":
		chains = closeChains(must, c, 1)
	case "recv-on-closed":
		chains = closeChains(must, c, -1)
	case "negative-waitgroup":
		chains = waitGroupChains(must, c)
	case "cyclic-deadlock":
		chains = rwRecursionChains(must, c)
		if n := cycleRequests(c); n > 2 {
			// lockCycleChains rewrites two-lock cycles only; pairing every acquisition at a
			// longer cycle's positions (thousands in a real suite) cost minutes for nothing
			if len(chains) == 0 {
				return nil, fmt.Errorf("no rewrite confirms a lock cycle of %d goroutines (two-lock cycles and read-lock recursion are rewritten)", n)
			}
		} else {
			more, cut := lockCycleChains(must, c)
			chains = append(chains, more...)
			if cut {
				searchCut = fmt.Sprintf(" (search cut at %d pairs of acquisitions or %d schedules)", maxLockPairs, maxLockChains)
			}
		}
	case "mixed-deadlock":
		chains = mixedChains(must, c)
	case "t-used-after-test":
		chains = testEndChains(must, c) // confirm_testing.go
	case "data-race": // predicted only for an Add from zero racing a Wait
		chains = addWaitChains(must, c) // confirm_waitgroup.go
	default:
		return nil, fmt.Errorf("no rewrite confirms %s (confirmable: %s)", c.Kind, strings.Join(ConfirmableKinds, ", "))
	}
	var out []Rewrite
	if c.Kind == "data-race" {
		out = addWaitDelays(must, chains) // confirm_waitgroup.go
	}
	seen := map[string]bool{}
	var firstErr error
	for _, chain := range chains {
		if len(out) == maxRewrites {
			break
		}
		order, err := replayOrder(must, linear(must), chain)
		if err == nil && c.Kind == "negative-waitgroup" && !goesNegative(must, order, chain[0]) {
			err = fmt.Errorf("the counter is above zero when %s runs", shortOp(r.Names.Ops[chain[0]]))
		}
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		s := orderSchedule(must, order, nil, DefaultOrderWindow, DefaultSelectWindow)
		key, ok := keyOf("confirm", s)
		if !ok || seen[key] {
			continue
		}
		seen[key] = true
		names := make([]string, len(chain))
		for k, e := range chain {
			names[k] = shortOp(r.Names.Ops[e])
		}
		out = append(out, Rewrite{Schedule: s, Chain: chain, Note: c.Kind + ": " + strings.Join(names, ", then ") + searchCut})
	}
	if len(out) == 0 {
		if firstErr != nil {
			return nil, fmt.Errorf("no schedule of the recorded run can make this %s happen: %v%s", c.Kind, firstErr, searchCut)
		}
		return nil, fmt.Errorf("the recorded run has no operations at the positions of this %s%s", c.Kind, searchCut)
	}
	return out, nil
}

// goesNegative reports whether, admitting order, the WaitGroup counter is zero when done
// runs (every Add and Done of its WaitGroup admitted before it counted).
func goesNegative(r *Run, order []int, done int) bool {
	wg := r.Trace.Events[done].Obj
	counter := int64(0)
	for _, e := range order {
		ev := &r.Trace.Events[e]
		if ev.Obj != wg || (ev.Kind != trace.KindWgAdd && ev.Kind != trace.KindWgDone) {
			continue
		}
		counter += int64(ev.A)
		if e == done {
			return counter < 0
		}
	}
	return false
}

// at lists the schedulable events at the claim position with the given role (or, when
// role is "", at the primary position) that satisfy keep.
func at(r *Run, c Claim, role string, keep func(e *trace.Event) bool) []int {
	var want []schedule.Pos
	for k, p := range c.Positions {
		if (role == "" && k == 0) || (role != "" && p.Role == role) {
			want = append(want, p.Pos)
		}
	}
	var out []int
	for _, i := range r.lin {
		if slices.Contains(want, r.Names.Ops[i].Pos) && keep(&r.Trace.Events[i]) {
			out = append(out, i)
		}
	}
	// Operations that never completed (a goroutine blocked at the end) are schedulable too.
	for i := range r.Trace.Events {
		if r.rank[i] < 0 && r.Names.Schedulable(i) && slices.Contains(want, r.Names.Ops[i].Pos) && keep(&r.Trace.Events[i]) {
			out = append(out, i)
		}
	}
	return out
}

func roleOf(c Claim, k int, fallback string) string {
	if k < len(c.Positions) && c.Positions[k].Role != "" {
		return c.Positions[k].Role
	}
	return fallback
}

// closeChains: [close, op] for every close and send (dir 1) or value receive (dir -1) of one
// channel that the close need not follow.
func closeChains(r *Run, c Claim, dir int) [][]int {
	ops := at(r, c, "", func(e *trace.Event) bool {
		_, d, _, closed := transfer(e)
		if d == 0 && e.Kind == trace.KindChanSend {
			d = 1
		}
		return d == dir && !closed
	})
	closes := at(r, c, roleOf(c, 1, "close"), func(e *trace.Event) bool { return e.Kind == trace.KindChanClose })
	var out [][]int
	for _, op := range ops {
		obj := object(&r.Trace.Events[op])
		if obj == 0 {
			obj = r.Trace.Events[op].Obj
		}
		for _, cl := range closes {
			if r.Trace.Events[cl].Obj == obj && !r.HB.HappensBefore(op, cl) {
				out = append(out, []int{cl, op})
			}
		}
	}
	return out
}

// waitGroupChains: [done, add] for a Done and an Add of one WaitGroup in different
// goroutines that the Done need not follow.
func waitGroupChains(r *Run, c Claim) [][]int {
	dones := at(r, c, "", func(e *trace.Event) bool {
		return e.Kind == trace.KindWgDone || (e.Kind == trace.KindWgAdd && int64(e.A) < 0)
	})
	adds := at(r, c, roleOf(c, 1, "add"), func(e *trace.Event) bool { return e.Kind == trace.KindWgAdd && int64(e.A) > 0 })
	return addNeedNotPrecede(r, dones, adds, false)
}

// addNeedNotPrecede: [x, add] for each x of xs and add of adds on one object in different
// goroutines where the add need not happen before x. addsOuter nests the loops with the
// adds outside: it decides the order in which the chains are tried.
func addNeedNotPrecede(r *Run, xs, adds []int, addsOuter bool) [][]int {
	var out [][]int
	pair := func(x, a int) {
		ex, ea := &r.Trace.Events[x], &r.Trace.Events[a]
		if ex.Obj == ea.Obj && ex.G != ea.G && !r.HB.HappensBefore(a, x) {
			out = append(out, []int{x, a})
		}
	}
	if addsOuter {
		for _, a := range adds {
			for _, x := range xs {
				pair(x, a)
			}
		}
		return out
	}
	for _, x := range xs {
		for _, a := range adds {
			pair(x, a)
		}
	}
	return out
}

func isAcquire(e *trace.Event) bool {
	switch e.Kind {
	case trace.KindLock, trace.KindRLock:
		return true
	case trace.KindTryLock, trace.KindTryRLock:
		return e.Flags.Has(trace.FlagSuccess)
	}
	return false
}

// holds reports whether acquisition h is still held by its goroutine when event x of the
// same goroutine starts.
func holds(r *Run, h, x int) bool { return newReleases(r.Trace).holds(r, h, x) }

// releases indexes a trace's Unlock and RUnlock events by object, in stamp order, so that
// whether a lock is still held at a later request is a binary search, not a pass over the
// trace per pair (with thousands of acquisitions at a cycle's positions in a real suite,
// client_golang's, the pairs times the trace cost minutes).
type releases map[uint64][]int

func newReleases(tr *trace.Trace) releases {
	x := releases{}
	for i := range tr.Events {
		if k := tr.Events[i].Kind; k == trace.KindUnlock || k == trace.KindRUnlock {
			x[tr.Events[i].Obj] = append(x[tr.Events[i].Obj], i)
		}
	}
	for _, l := range x {
		slices.SortFunc(l, func(a, b int) int { return cmpU64(tr.Events[a].Pre, tr.Events[b].Pre) })
	}
	return x
}

// holds reports whether acquisition h is still held by its goroutine at x, a later
// operation of the same goroutine. A write lock is released by the first Unlock after it
// was acquired; when another goroutine makes it, the lock was handed off (to a flusher the
// locker started, as prometheus/client_golang's summary does) and its locker never holds
// it across a later request: the goroutine that unlocks it does, even while it is in
// flight. A read lock is released by its goroutine's RUnlock.
func (rel releases) holds(r *Run, h, x int) bool {
	eh, ex := &r.Trace.Events[h], &r.Trace.Events[x]
	if eh.G != ex.G || eh.Pre >= ex.Pre || !eh.Completed() {
		return false
	}
	read := eh.Kind == trace.KindRLock || eh.Kind == trace.KindTryRLock
	l := rel[eh.Obj]
	from := eh.Post
	if read {
		from = eh.Pre
	}
	k, _ := slices.BinarySearchFunc(l, from, func(i int, stamp uint64) int { return cmpU64(r.Trace.Events[i].Pre, stamp+1) })
	for ; k < len(l); k++ {
		e := &r.Trace.Events[l[k]]
		if e.Pre >= ex.Pre {
			break
		}
		if !read && e.Kind == trace.KindUnlock {
			return false
		}
		if read && e.Kind == trace.KindRUnlock && e.G == eh.G {
			return false
		}
	}
	if !read { // not released before x: held unless another goroutine releases it
		for ; k < len(l); k++ {
			if e := &r.Trace.Events[l[k]]; e.Kind == trace.KindUnlock {
				return e.G == eh.G
			}
		}
	}
	return true
}

// lockDep is an acquisition (req) made while holding another lock (held).
type lockDep struct{ held, req int }

// maxLockPairs bounds the (request, held lock) pairs lockDeps looks at, and the pairs of
// dependencies lockCycleChains does, for one claim; maxLockChains the chains it returns
// (Confirm tries maxRewrites of them). Beyond them the search is cut and the claim says so.
const (
	maxLockPairs  = 1 << 18
	maxLockChains = 64
)

// lockDeps returns the dependencies at the claim's positions and whether the search was
// cut at maxLockPairs.
func lockDeps(r *Run, c Claim, heldRole string) ([]lockDep, bool) {
	reqs := at(r, c, "", isAcquire)
	for k, p := range c.Positions {
		if k > 0 && p.Role == c.Positions[0].Role {
			reqs = append(reqs, at(r, Claim{Positions: []ClaimPos{p}}, "", isAcquire)...)
		}
	}
	helds := at(r, c, heldRole, isAcquire)
	rel := newReleases(r.Trace)
	var out []lockDep
	work := 0
	for _, q := range reqs {
		for _, h := range helds {
			if work++; work > maxLockPairs {
				return out, true
			}
			if r.Trace.Events[h].Obj != r.Trace.Events[q].Obj && rel.holds(r, h, q) {
				out = append(out, lockDep{h, q})
			}
		}
	}
	return out, false
}

// cycleRequests is the number of lock requests of a cyclic-deadlock claim: its primary
// position and the others of the same role, one per goroutine of the cycle.
func cycleRequests(c Claim) int {
	n := 0
	for _, p := range c.Positions {
		if len(c.Positions) > 0 && p.Role == c.Positions[0].Role {
			n++
		}
	}
	return n
}

// lockCycleChains: for two goroutines that each hold one lock of a pair and request the
// other, [held A, held B, request A, request B] (both orders of A and B). cut reports that
// the search stopped at maxLockPairs or maxLockChains.
func lockCycleChains(r *Run, c Claim) (out [][]int, cut bool) {
	deps, cut := lockDeps(r, c, "held lock")
	ev := func(i int) *trace.Event { return &r.Trace.Events[i] }
	work := 0
	for _, a := range deps {
		for _, b := range deps {
			if work++; work > maxLockPairs || len(out) == maxLockChains {
				return out, true
			}
			if ev(a.held).G == ev(b.held).G || ev(a.held).Obj != ev(b.req).Obj || ev(b.held).Obj != ev(a.req).Obj {
				continue
			}
			out = append(out, []int{a.held, b.held, a.req, b.req})
		}
	}
	return out, cut
}

// rwRecursionChains: [outer RLock, the writer's Lock, inner RLock] for a goroutine that
// read-locks an RWMutex it already read-holds while another goroutine write-locks it.
func rwRecursionChains(r *Run, c Claim) [][]int {
	inner := at(r, c, "", func(e *trace.Event) bool { return e.Kind == trace.KindRLock })
	writers := at(r, c, "writer lock", func(e *trace.Event) bool { return e.Kind == trace.KindLock })
	outer := at(r, c, "held lock", func(e *trace.Event) bool { return e.Kind == trace.KindRLock })
	var out [][]int
	for _, in := range inner {
		for _, o := range outer {
			if r.Trace.Events[o].Obj != r.Trace.Events[in].Obj || !holds(r, o, in) {
				continue
			}
			for _, w := range writers {
				if r.Trace.Events[w].Obj == r.Trace.Events[in].Obj && r.Trace.Events[w].G != r.Trace.Events[in].G {
					out = append(out, []int{o, w, in})
				}
			}
		}
	}
	return out
}

// mixedChains: [the lock held around the channel operation, the partner's Lock of the same
// mutex], after which the channel operation blocks while its partner waits for the lock.
func mixedChains(r *Run, c Claim) [][]int {
	held := at(r, c, "held lock", isAcquire)
	partner := at(r, c, "partner's lock", isAcquire)
	var out [][]int
	for _, h := range held {
		for _, p := range partner {
			eh, ep := &r.Trace.Events[h], &r.Trace.Events[p]
			if eh.Obj == ep.Obj && eh.G != ep.G {
				out = append(out, []int{h, p})
			}
		}
	}
	return out
}
