package analysis

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/goweave/goweave/analysis/trace"
)

// One stuck state, one finding, at its root cause. A pool that leaked one lock left 150
// goroutines queued behind it, blocked at 7 or 8 different lines: reported one finding per
// blocked line, the user had to find the Lock that was never unlocked among them. The
// blocked goroutines form a wait-for graph (a goroutine blocked in Lock waits for the
// mutex's holder; one blocked on a channel for the goroutines that could serve it: those
// that sent or closed it, for a receive, or received from it, for a send; one blocked in
// WaitGroup.Wait for the users of the WaitGroup and the goroutines they started); what
// nothing waits past is the root cause:
//
//   - a lock never released: the mutex's holder has exited (it returned holding it) or is
//     not blocked in a recorded operation; the root is that holder's Lock;
//   - a cycle: goroutines each waiting for the next (a strongly connected part of the
//     graph that waits for nothing outside it, a Lock of a mutex its goroutine holds
//     included); the root is the cycle's operations;
//   - an operation nothing can complete: a goroutine blocked on what no goroutine left
//     can serve; goroutines blocked on the same objects share one root.
//
// A holder blocked elsewhere is followed: the goroutines behind the lock wait for what the
// holder waits for. Each root is one finding, anchored at the root, with the goroutines
// that wait for it (directly or not) as related positions (one per blocked line, capped)
// and their number in the message. Its fingerprint is the root's alone, so that runs in
// which different goroutines queued behind the same root give one finding.

// rootKind says what a stuck state's root cause is.
type rootKind int

const (
	rootLeakedLock rootKind = iota // a mutex whose holder exited or is not blocked
	rootCycle                      // goroutines waiting for each other
	rootStuckOp                    // an operation nothing left can complete
)

// stuckRoot is one stuck state: its root cause and the blocked operations waiting for it.
type stuckRoot struct {
	kind    rootKind
	lock    int32   // rootLeakedLock: the acquisition never released
	ops     []int32 // the root's blocked operations (the cycle's, or those nothing can complete)
	waiting []int32 // the other blocked operations that wait for the root, in trace order
}

// waitFor is the wait-for graph of the blocked goroutines of a run.
type waitFor struct {
	op       map[int32]int32   // blocked goroutine -> its blocked operation
	succ     map[int32][]int32 // blocked goroutine -> the blocked goroutines it waits for
	heldBy   map[int32]int32   // goroutine blocked in Lock -> the acquisition it waits for, when its holder is not blocked
	busy     map[int32]bool    // waits for a goroutine still alive and not blocked: may yet proceed
	selfLock map[int32]bool    // blocked in Lock of a mutex it holds itself
	idle     map[int32]bool    // an idle service loop (idleLoop)
}

// buildWaitFor builds the wait-for graph of the blocked operations all.
func (r *Result) buildWaitFor(all []int32) *waitFor {
	evs := r.Trace.Events
	w := &waitFor{op: map[int32]int32{}, succ: map[int32][]int32{}, heldBy: map[int32]int32{}, busy: map[int32]bool{}, selfLock: map[int32]bool{}, idle: map[int32]bool{}}
	for _, i := range all {
		w.op[r.gOf[i]] = i
	}
	blockedG := func(g int32) bool { _, ok := w.op[g]; return ok }
	busyG := func(g int32) bool {
		info := r.Goroutines[g]
		return info.Alive && !info.Ended && info.Blocked < 0
	}
	// who could serve what: per object, the goroutines whose operations could complete a
	// receive (senders, closers), a send (receivers), or anything else (every user)
	type servers struct{ forRecv, forSend, any map[int32]bool }
	objs := map[uint64]*servers{}
	for _, i := range all {
		for _, o := range blockedObjs(&evs[i]) {
			objs[o] = &servers{map[int32]bool{}, map[int32]bool{}, map[int32]bool{}}
		}
	}
	note := func(o uint64, g int32, send, recv bool) {
		s := objs[o]
		if s == nil || g < 0 {
			return
		}
		s.any[g] = true
		if send {
			s.forRecv[g] = true
		}
		if recv {
			s.forSend[g] = true
		}
	}
	adders := map[uint64][]int32{} // WaitGroup -> goroutines that called Add
	type site struct {
		g   int32
		pos uint32
	}
	served := map[site]bool{} // receives (and selects of receives) completed, by goroutine and line
	for k := range evs {
		ev := &evs[k]
		g := r.gOf[k]
		if receiveOnly(ev) && ev.Completed() {
			served[site{g, ev.Pos}] = true
		}
		switch ev.Kind {
		case trace.KindSelect:
			for _, c := range ev.Cases {
				note(c.Obj, g, c.Send, !c.Send)
			}
		case trace.KindChanSend:
			note(ev.Obj, g, true, false)
		case trace.KindChanClose:
			note(ev.Obj, g, true, false)
		case trace.KindChanRecv:
			note(ev.Obj, g, false, true)
		case trace.KindChanMake, trace.KindGoSpawn, trace.KindGoEnd:
		case trace.KindWgAdd:
			if objs[ev.Obj] != nil && g >= 0 {
				adders[ev.Obj] = append(adders[ev.Obj], g)
			}
			note(ev.Obj, g, false, false)
		default:
			if ev.Obj != 0 {
				note(ev.Obj, g, false, false)
			}
		}
	}
	children := map[uint64][]int32{}
	for g, info := range r.Goroutines {
		children[info.Parent] = append(children[info.Parent], int32(g))
	}
	descendants := func(roots []int32) []int32 {
		var out []int32
		seen := map[int32]bool{}
		for len(roots) > 0 {
			var next []int32
			for _, p := range roots {
				for _, c := range children[r.Goroutines[p].ID] {
					if !seen[c] {
						seen[c] = true
						out = append(out, c)
						next = append(next, c)
					}
				}
			}
			roots = next
		}
		return out
	}
	for g, i := range w.op {
		if ev := &evs[i]; receiveOnly(ev) && served[site{g, ev.Pos}] {
			w.idle[g] = true
		}
	}
	for g, i := range w.op {
		ev := &evs[i]
		add := func(h int32) {
			switch {
			case h == g || h < 0:
			case blockedG(h):
				w.succ[g] = append(w.succ[g], h) // deduplicated below
			case busyG(h):
				w.busy[g] = true
			}
		}
		if ev.Kind == trace.KindLock || ev.Kind == trace.KindRLock {
			// every waitee must move first (a writer waits for all readers): one blocked
			// is enough to keep it waiting, one not blocked is a lock never released
			waitees := r.lockWaitees(i)
			if h, ok := r.facts.holders[ev.Obj]; ok && len(waitees) == 0 {
				waitees = []int32{h} // an RLock blocked by no recorded writer: its readers, as before
			}
			for _, h := range waitees {
				switch gh := r.gOf[h]; {
				case gh < 0:
				case gh == g:
					w.selfLock[g] = true
				case blockedG(gh):
					if !slices.Contains(w.succ[g], gh) {
						w.succ[g] = append(w.succ[g], gh)
					}
				case evs[h].Post == 0: // a pending writer not among the blocked
				default:
					if _, ok := w.heldBy[g]; !ok {
						w.heldBy[g] = h
					}
				}
			}
			continue
		}
		var users []int32
		for _, o := range blockedObjs(ev) {
			s := objs[o]
			var from map[int32]bool
			switch {
			case ev.Kind == trace.KindChanRecv:
				from = s.forRecv
			case ev.Kind == trace.KindChanSend:
				from = s.forSend
			case ev.Kind == trace.KindSelect:
				from = map[int32]bool{}
				for _, c := range ev.Cases {
					if c.Obj == o {
						src := s.forRecv
						if c.Send {
							src = s.forSend
						}
						for u := range src {
							from[u] = true
						}
					}
				}
			default:
				from = s.any
			}
			for u := range from {
				users = append(users, u)
			}
			if ev.Kind == trace.KindWgWait {
				// the workers an Add counted call Done later: not users yet
				users = append(users, descendants(adders[o])...)
			}
		}
		slices.Sort(users)
		for _, u := range users {
			add(u)
		}
		if len(w.succ[g]) == 0 && !w.busy[g] {
			// what it waits for may come from a goroutine it started (a result not yet
			// sent), but not from one idle in its service loop: it sends nothing until
			// its input comes, and nothing can send that either (hystrix-go's metrics
			// Monitor, idle on its Updates channel, while the test waited on errChan)
			for _, c := range descendants([]int32{g}) {
				if !w.idle[c] {
					add(c)
				}
			}
		}
		if s := w.succ[g]; len(s) > 1 {
			slices.Sort(s)
			w.succ[g] = slices.Compact(s)
		}
	}
	return w
}

// stuckRoots returns the stuck states of the blocked operations ops (a subset of all, the
// run's blocked operations): one per root cause, with the operations of ops that wait for
// it. Operations that reach no root (they wait for a goroutine that may still proceed)
// are left out.
func (r *Result) stuckRoots(ops, all []int32) []stuckRoot {
	w := r.buildWaitFor(all)
	comp, members := sccOf(w.succ, sortedKeys(w.op))
	// the components that wait for nothing outside themselves
	var roots []stuckRoot
	byKey := map[string]int{}
	var rootGs [][]int32 // per root, its goroutines
	addRoot := func(key string, s stuckRoot, gs []int32) {
		k, ok := byKey[key]
		if !ok {
			k = len(roots)
			byKey[key] = k
			roots = append(roots, s)
			rootGs = append(rootGs, nil)
		} else {
			roots[k].ops = append(roots[k].ops, s.ops...)
		}
		rootGs[k] = append(rootGs[k], gs...)
	}
	for c, gs := range members {
		sink, busy := true, false
		for _, g := range gs {
			busy = busy || w.busy[g]
			for _, h := range w.succ[g] {
				if comp[h] != c {
					sink = false
				}
			}
		}
		if !sink || busy {
			continue
		}
		g := gs[0]
		i := w.op[g]
		switch h, held := w.heldBy[g]; {
		case len(gs) > 1 || w.selfLock[g]:
			var cyc []int32
			for _, g := range gs {
				cyc = append(cyc, w.op[g])
			}
			slices.Sort(cyc)
			addRoot(fmt.Sprint("cycle", cyc), stuckRoot{kind: rootCycle, ops: cyc}, gs)
		case held:
			addRoot(fmt.Sprint("lock", h), stuckRoot{kind: rootLeakedLock, lock: h, ops: []int32{i}}, gs)
		default:
			objs := blockedObjs(&r.Trace.Events[i])
			slices.Sort(objs)
			key := fmt.Sprint("op", r.Trace.Events[i].Kind, objs)
			if len(objs) == 0 {
				key = fmt.Sprint("op", i)
			}
			addRoot(key, stuckRoot{kind: rootStuckOp, lock: -1, ops: []int32{i}}, gs)
		}
	}
	// every blocked goroutine of ops waits for the roots it reaches
	pred := map[int32][]int32{}
	for g, hs := range w.succ {
		for _, h := range hs {
			pred[h] = append(pred[h], g)
		}
	}
	inOps := map[int32]bool{}
	for _, i := range ops {
		inOps[i] = true
	}
	for k := range roots {
		isRoot := map[int32]bool{} // a leaked lock's root is the Lock: its waiters wait for it
		if roots[k].kind != rootLeakedLock {
			for _, i := range roots[k].ops {
				isRoot[i] = true
			}
		}
		queue := slices.Clone(rootGs[k])
		seen := map[int32]bool{}
		for _, g := range queue {
			seen[g] = true
		}
		for len(queue) > 0 {
			g := queue[0]
			queue = queue[1:]
			if i := w.op[g]; inOps[i] && !isRoot[i] {
				roots[k].waiting = append(roots[k].waiting, i)
			}
			for _, p := range pred[g] {
				if !seen[p] {
					seen[p] = true
					queue = append(queue, p)
				}
			}
		}
		slices.Sort(roots[k].ops)
		slices.Sort(roots[k].waiting)
	}
	roots = r.dropIdleLoops(roots, w)
	roots = mergeSharedStuckOps(roots)
	// only the roots within ops (a root outside them, which a time limit's stuck
	// operations may wait for, is not proven stuck), in the order of their first operation
	out := roots[:0]
	for _, s := range roots {
		if !slices.ContainsFunc(s.ops, func(i int32) bool { return !inOps[i] }) {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b stuckRoot) int { return cmp.Compare(a.ops[0], b.ops[0]) })
	return out
}

// receiveOnly reports whether ev is a receive, or a select whose cases all receive: what a
// service loop waits for its next input in.
func receiveOnly(ev *trace.Event) bool {
	switch ev.Kind {
	case trace.KindChanRecv:
		return true
	case trace.KindSelect:
		return len(ev.Cases) > 0 && !slices.ContainsFunc(ev.Cases, func(c trace.Case) bool { return c.Send })
	}
	return false
}

// dropIdleLoops leaves out, when another stuck state remains, the roots that are only
// idle service loops nothing waits for: a goroutine blocked in a receive at a line where it
// received before (the next iteration of its loop) is idle because its input stopped, a
// consequence of the stuck state, not its cause.
func (r *Result) dropIdleLoops(roots []stuckRoot, w *waitFor) []stuckRoot {
	idle := func(s stuckRoot) bool {
		return s.kind == rootStuckOp && len(s.waiting) == 0 && !slices.ContainsFunc(s.ops, func(i int32) bool { return !w.idle[r.gOf[i]] })
	}
	if !slices.ContainsFunc(roots, func(s stuckRoot) bool { return !idle(s) }) {
		return roots
	}
	return slices.DeleteFunc(roots, idle)
}

// mergeSharedStuckOps makes one stuck state of the operations nothing can complete that
// the same goroutines wait for: a cycle through channels whose partners' operations were
// never reached (each receive waits for a send its partner would make after its own
// receive) has no recorded edge between its goroutines, so each is a root of its own, and
// the test goroutine waiting for all of them ties them into one state. Leaked locks and
// recorded cycles stay roots of their own: each is a cause the user fixes apart.
func mergeSharedStuckOps(roots []stuckRoot) []stuckRoot {
	into := map[int32]int{} // waiting operation -> the root it was first seen under
	var out []stuckRoot
	for _, s := range roots {
		if s.kind != rootStuckOp {
			out = append(out, s)
			continue
		}
		k := -1
		for _, i := range s.waiting {
			if j, ok := into[i]; ok {
				k = j
				break
			}
		}
		if k < 0 {
			k = len(out)
			out = append(out, s)
		} else {
			out[k].ops = append(out[k].ops, s.ops...)
			out[k].waiting = append(out[k].waiting, s.waiting...)
		}
		for _, i := range s.waiting {
			if _, ok := into[i]; !ok {
				into[i] = k
			}
		}
	}
	for k := range out {
		slices.Sort(out[k].ops)
		out[k].ops = slices.Compact(out[k].ops)
		slices.Sort(out[k].waiting)
		out[k].waiting = slices.Compact(out[k].waiting)
	}
	return out
}

func sortedKeys(m map[int32]int32) []int32 {
	out := make([]int32, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// sccOf returns the strongly connected component of each node and each component's
// members (Tarjan's algorithm; nodes in order, so the numbering is deterministic).
func sccOf(succ map[int32][]int32, nodes []int32) (map[int32]int, [][]int32) {
	index := map[int32]int{}
	low := map[int32]int{}
	onStack := map[int32]bool{}
	var stack []int32
	comp := map[int32]int{}
	var members [][]int32
	n := 0
	var visit func(v int32)
	visit = func(v int32) {
		index[v], low[v] = n, n
		n++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range succ[v] {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var m []int32
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp[w] = len(members)
				m = append(m, w)
				if w == v {
					break
				}
			}
			slices.Sort(m)
			members = append(members, m)
		}
	}
	for _, v := range nodes {
		if _, seen := index[v]; !seen {
			visit(v)
		}
	}
	return comp, members
}

// stuckFinding is the deadlock finding of stuck state s; head says how the run ended
// ("the run is stuck", "the run hangs (stopped at its time limit)").
func (r *Result) stuckFinding(s stuckRoot, head string) Finding {
	var ops []op
	var msg string
	switch s.kind {
	case rootLeakedLock:
		h := s.lock
		holder := r.Goroutines[r.gOf[h]]
		fate := "has exited without unlocking it"
		if !holder.Ended {
			fate = "is not blocked in a recorded operation (running, sleeping or in a system call) and never unlocked it"
		}
		msg = fmt.Sprintf("%s: %s locked at %s was never released: %s, which locked it, %s",
			head, r.operand(h, "a mutex"), r.at(h), r.spawnedAt(h), fate)
		ops = append(ops, op{"lock never released", h})
	case rootCycle:
		cyc := r.cycleOrder(s.ops)
		var desc []string
		for _, i := range cyc {
			d := fmt.Sprintf("%s is blocked %s at %s", r.spawnedAt(i), r.blockedIn(i), r.at(i))
			if h, ok := r.heldFor(i, cyc); ok {
				d += fmt.Sprintf(" holding the lock taken at %s", r.at(h))
			}
			desc = append(desc, d)
		}
		what := fmt.Sprintf("a cycle of %d goroutine(s) waiting for each other", len(cyc))
		if !slices.ContainsFunc(cyc, func(i int32) bool {
			k := r.Trace.Events[i].Kind
			return k != trace.KindLock && k != trace.KindRLock
		}) {
			what = fmt.Sprintf("a lock cycle of %d goroutine(s) (only a holder unlocks its mutex)", len(cyc))
		}
		msg = fmt.Sprintf("%s in %s: %s", head, what, strings.Join(desc, "; "))
		for _, i := range cyc {
			ops = append(ops, op{"cycle", i})
		}
		for _, i := range cyc {
			if h, ok := r.heldFor(i, cyc); ok {
				ops = append(ops, op{"held lock", h})
			}
		}
	default:
		i := s.ops[0]
		msg = fmt.Sprintf("%s: %s is blocked %s at %s, and no goroutine left can complete it", head, r.spawnedAt(i), r.blockedIn(i), r.at(i))
		if n := len(s.ops) - 1; n > 0 {
			same := true
			for _, j := range s.ops[1:] {
				same = same && slices.Equal(blockedObjs(&r.Trace.Events[j]), blockedObjs(&r.Trace.Events[i]))
			}
			if same {
				msg += fmt.Sprintf(" (nor the %d other operation(s) blocked on the same)", n)
			} else {
				msg += fmt.Sprintf(" (nor %d other operation(s) in the same stuck state: %s)", n, r.waitingLines(s.ops[1:]))
			}
		}
		held := r.locksHeldBy(r.gOf[i], s.waiting)
		if len(held) > 0 {
			var at []string
			for _, h := range held {
				at = append(at, fmt.Sprintf("%s (locked at %s)", r.operand(h, "a mutex"), r.at(h)))
			}
			msg += fmt.Sprintf(", holding %s that others wait for", joinAnd(at))
		}
		lines := map[uint32]bool{}
		for _, j := range s.ops {
			if p := r.Trace.Events[j].Pos; !lines[p] && len(lines) < maxAlsoBlocked {
				lines[p] = true
				ops = append(ops, op{"blocked", j}) // one per line
			}
		}
		for _, h := range held {
			ops = append(ops, op{"held lock", h})
		}
	}
	root := len(ops)
	if n := len(s.waiting); n > 0 {
		msg += fmt.Sprintf("; %d other goroutine(s) wait for it: %s", n, r.waitingLines(s.waiting))
	}
	// related: the waiting operations, one per line
	lines := map[uint32]bool{}
	for _, o := range ops {
		lines[r.Trace.Events[o.ev].Pos] = true
	}
	for _, i := range s.waiting {
		if p := r.Trace.Events[i].Pos; !lines[p] && len(ops)-root < maxAlsoBlocked {
			lines[p] = true
			ops = append(ops, op{"also blocked", i})
		}
	}
	f := r.newFinding("deadlock", Actual, msg, ops...)
	if len(f.Positions) > 0 {
		f.Fingerprint = r.rootFingerprint(s, f.Positions[:min(root, len(f.Positions))])
	}
	return f
}

// rootFingerprint identifies a stuck state by its root alone: the never-released Lock, the
// cycle's operations, or, for operations nothing can complete, the objects they wait on
// (by where they were made, when the trace has it) and their kind.
func (r *Result) rootFingerprint(s stuckRoot, rootPos []Position) string {
	if s.kind == rootStuckOp {
		ev := &r.Trace.Events[s.ops[0]]
		var made []Position
		for _, o := range blockedObjs(ev) {
			if m, ok := r.makeEvent(o); ok {
				p := r.Trace.Position(r.Trace.Events[m].Pos)
				made = append(made, Position{Role: "made", File: p.File, Line: p.Line})
			}
		}
		if len(made) > 0 && len(made) == len(blockedObjs(ev)) {
			return r.fingerprint("deadlock", append(made, Position{Role: ev.Kind.String()}))
		}
		return r.fingerprint("deadlock", rootPos[:1])
	}
	return r.fingerprint("deadlock", rootPos)
}

// makeEvent returns the event that made channel o, if recorded.
func (r *Result) makeEvent(o uint64) (int32, bool) {
	if r.makes == nil {
		r.makes = map[uint64]int32{}
		for k := range r.Trace.Events {
			if ev := &r.Trace.Events[k]; ev.Kind == trace.KindChanMake && ev.Obj != 0 {
				if _, dup := r.makes[ev.Obj]; !dup {
					r.makes[ev.Obj] = int32(k)
				}
			}
		}
	}
	m, ok := r.makes[o]
	return m, ok
}

// cycleOrder orders a cycle's operations: first a channel operation (or Wait) blocked
// while holding a lock another goroutine of the cycle requests (the lock held across it is
// the bug, as mixed-deadlock reports it), then from the goroutine started last in the spawn
// tree (closingFirst's rule: the same in every run); a Lock whose goroutine holds none of
// the cycle's locks (a writer pending between two readers) comes last.
func (r *Result) cycleOrder(cyc []int32) []int32 {
	memo := map[int32][]int{}
	underLock := func(i int32) int {
		k := r.Trace.Events[i].Kind
		_, held := r.heldFor(i, cyc)
		switch {
		case held && k != trace.KindLock && k != trace.KindRLock:
			return 0
		case !held && k == trace.KindLock:
			return 2 // a writer pending on an RWMutex, holding nothing of the cycle: not the lock order's
		}
		return 1
	}
	out := slices.Clone(cyc)
	slices.SortStableFunc(out, func(a, b int32) int {
		return cmp.Or(cmp.Compare(underLock(a), underLock(b)),
			-slices.Compare(r.spawnPath(r.gOf[a], memo), r.spawnPath(r.gOf[b], memo)), -cmp.Compare(a, b))
	})
	return out
}

// heldFor returns the acquisition, by goroutine of i, of a mutex another operation of cyc
// requests.
func (r *Result) heldFor(i int32, cyc []int32) (int32, bool) {
	for _, j := range cyc {
		ev := &r.Trace.Events[j]
		if ev.Kind != trace.KindLock && ev.Kind != trace.KindRLock {
			continue
		}
		for _, h := range r.heldAcqs(ev.Obj) {
			if r.gOf[h] == r.gOf[i] && (j != i || r.gOf[j] == r.gOf[h]) {
				return h, true
			}
		}
	}
	return -1, false
}

// locksHeldBy returns the acquisitions goroutine g still holds of mutexes that the
// operations waiting request.
func (r *Result) locksHeldBy(g int32, waiting []int32) []int32 {
	var out []int32
	for _, j := range waiting {
		ev := &r.Trace.Events[j]
		if ev.Kind != trace.KindLock && ev.Kind != trace.KindRLock {
			continue
		}
		for _, h := range r.heldAcqs(ev.Obj) {
			if r.gOf[h] == g && !slices.Contains(out, h) {
				out = append(out, h)
			}
		}
	}
	slices.Sort(out)
	return out
}

// waitingLines summarises blocked operations by line: "3 locking p.mu at pool.go:51, the
// test goroutine in wg.Wait() at pool_test.go:28, ...", the most frequent first, at most
// five lines.
func (r *Result) waitingLines(ops []int32) string {
	type line struct {
		first int32
		n     int
	}
	byPos := map[uint32]*line{}
	var order []*line
	for _, i := range ops {
		p := r.Trace.Events[i].Pos
		if l := byPos[p]; l != nil {
			l.n++
			continue
		}
		l := &line{first: i, n: 1}
		byPos[p] = l
		order = append(order, l)
	}
	slices.SortStableFunc(order, func(a, b *line) int { return -cmp.Compare(a.n, b.n) })
	var parts []string
	for k, l := range order {
		if k == 5 {
			parts = append(parts, fmt.Sprintf("%d more line(s)", len(order)-k))
			break
		}
		who := r.spawnedAt(l.first)
		if l.n > 1 {
			who = fmt.Sprintf("%d goroutines", l.n)
		}
		parts = append(parts, fmt.Sprintf("%s %s at %s", who, r.blockedIn(l.first), r.at(l.first)))
	}
	return strings.Join(parts, ", ")
}
