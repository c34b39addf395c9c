package analysis

import (
	"fmt"
	"slices"

	"github.com/goweave/goweave/analysis/trace"
)

var CyclicDeadlock = &Detector{
	Name: "cyclic-deadlock",
	Doc: `A cycle in lock acquisition order that can deadlock, including read-lock recursion on an RWMutex with a pending writer.

Each goroutine in the cycle holds one lock and requests the next one. It is predicted from
lock dependencies (goroutine, requested lock, locks held): a chain whose requests are
pairwise concurrent (ignoring the mutexes' own ordering), whose goroutines differ and whose
held locks are disjoint (no common guard lock) can deadlock in another schedule. A lock
unlocked by another goroutine than its locker (handed off, e.g. to a flusher the locker
starts) is held by no goroutine of a dependency: its locker does not wait while holding it. A
pending writer blocks new readers, so an RLock can wait for another goroutine's read lock
of the same RWMutex when a writer's Lock comes in between: a cycle with such an edge is
reported when a third goroutine's Lock of that RWMutex can be pending at once (the
writer is then related information), never for readers alone; and a goroutine that
read-locks an RWMutex it already read-holds deadlocks with a writer whose Lock comes in
between. Fix it with one global
lock order (e.g. by account id), by not calling lock-taking functions under a lock, and by
never read-locking recursively.`,
	Run: func(r *Result) []Finding {
		var out []Finding
		for _, cyc := range lockCycles(r) {
			out = append(out, cycleFinding(r, cyc.deps, cyc.writers))
		}
		for _, f := range r.facts.rwRecursion {
			conf := Predicted
			if r.Trace.Events[f.inner].Post == 0 && r.Trace.Events[f.writer].Post == 0 {
				conf = Actual
			}
			m := r.operand(f.inner, "the RWMutex")
			msg := fmt.Sprintf("RLock of %s at %s is recursive (read-locked at %s) and a writer's Lock at %s is not ordered with it: a pending writer blocks the inner RLock while waiting for the outer one",
				m, r.at(f.inner), r.at(f.outer), r.at(f.writer))
			out = append(out, r.newFinding("cyclic-deadlock", conf, msg,
				op{"lock", f.inner}, op{"writer lock", f.writer}, op{"held lock", f.outer}))
		}
		return out
	},
}

// weakHB reports whether request a happens before request b ignoring mutex edges.
func weakHB(r *Result, a, b *lockDep) bool {
	if a.g == b.g {
		return r.epoch[a.ev] <= r.epoch[b.ev]
	}
	return r.epoch[a.ev] <= b.wvc.get(a.g)
}

func heldMode(d *lockDep, m int32) (held, read bool) {
	for _, h := range d.held {
		if h.mutex == m {
			return true, h.read
		}
	}
	return false, false
}

func guarded(a, b *lockDep) bool {
	for _, h := range a.held {
		if held, read := heldMode(b, h.mutex); held && !(read && h.read) {
			return true
		}
	}
	return false
}

// maxCycleLen and maxCycleSteps bound the cycle search.
const (
	maxCycleLen   = 4
	maxCycleSteps = 1 << 20
)

// lockCycle is a cycle of lock dependencies, with the pending writer of each read-read edge
// by the dependency whose RLock waits behind it (detect_deadlock_rw.go).
type lockCycle struct {
	deps    []*lockDep
	writers map[*lockDep]int32
}

// lockCycles finds chains d1 -> d2 -> ... -> dk -> d1 of lock dependencies in distinct
// goroutines where each request waits for a lock the next one holds (a read request for a
// read-held RWMutex through a writer pending between them), the held sets are pairwise
// unguarded, and the requests are pairwise weakly concurrent. Dependencies are first
// reduced to one per (goroutine, position, lock, held locks).
func lockCycles(r *Result) []lockCycle {
	deps := inCycles(uniqueDeps(r))
	holding := map[int32][]*lockDep{} // mutex -> dependencies whose goroutine holds it
	for _, d := range deps {
		for _, h := range d.held {
			if l := holding[h.mutex]; len(l) == 0 || l[len(l)-1] != d {
				holding[h.mutex] = append(l, d)
			}
		}
	}
	var out []lockCycle
	seen := map[string]bool{}
	steps, writerChecks := 0, 0
	path := []*lockDep{}
	var walk func(d *lockDep)
	walk = func(d *lockDep) {
		steps++
		if steps > maxCycleSteps {
			return
		}
		first := path[0]
		if len(path) >= 2 && r.waitsForRW(d, first) {
			key := cycleKey(r, path)
			if !seen[key] {
				if w, ok := r.cycleWriters(path, &writerChecks); ok {
					seen[key] = true
					out = append(out, lockCycle{slices.Clone(path), w})
				}
			}
		}
		if len(path) == maxCycleLen {
			return
		}
		for _, n := range holding[d.mutex] {
			if n == first || !r.waitsForRW(d, n) || slices.ContainsFunc(path, func(p *lockDep) bool {
				return p.g == n.g || guarded(p, n) || weakHB(r, p, n) || weakHB(r, n, p)
			}) {
				continue
			}
			// only walk cycles from their smallest member, so each is found once
			if n.ev < first.ev {
				continue
			}
			path = append(path, n)
			walk(n)
			path = path[:len(path)-1]
		}
	}
	for _, d := range deps {
		path = append(path[:0], d)
		walk(d)
	}
	return out
}

// inCycles keeps the dependencies whose edge (a held lock -> the requested lock) lies on a
// cycle of the lock graph, i.e. inside one of its strongly connected components: the others
// cannot be part of a dependency cycle, and most programs have none.
func inCycles(deps []*lockDep) []*lockDep {
	succ := map[int32][]int32{}
	for _, d := range deps {
		for _, h := range d.held {
			if h.mutex != d.mutex {
				succ[h.mutex] = append(succ[h.mutex], d.mutex)
			}
		}
	}
	comp := scc(succ)
	var out []*lockDep
	for _, d := range deps {
		for _, h := range d.held {
			if c, ok := comp[h.mutex]; ok && h.mutex != d.mutex && c == comp[d.mutex] {
				out = append(out, d)
				break
			}
		}
	}
	return out
}

// scc returns the strongly connected component of every node on a cycle (sccOf's
// components with more than one member; lock graphs are small).
func scc(succ map[int32][]int32) map[int32]int {
	nodes := make([]int32, 0, len(succ))
	for v := range succ {
		nodes = append(nodes, v)
	}
	slices.Sort(nodes)
	all, members := sccOf(succ, nodes)
	comp := map[int32]int{}
	for v, c := range all {
		if len(members[c]) > 1 {
			comp[v] = c
		}
	}
	return comp
}

func uniqueDeps(r *Result) []*lockDep {
	type key struct {
		g     int32
		pos   uint32
		mutex int32
		held  string
	}
	seen := map[key]int{}
	var out []*lockDep
	for k := range r.facts.deps {
		d := &r.facts.deps[k]
		if held := withoutHandedOff(r, d.held); len(held) < len(d.held) {
			if len(held) == 0 {
				continue
			}
			c := *d
			c.held = held
			d = &c
		}
		hk := ""
		for _, h := range d.held {
			hk += fmt.Sprintf("%d/%v/%d,", h.mutex, h.read, r.Trace.Events[h.ev].Pos)
		}
		kk := key{d.g, r.Trace.Events[d.ev].Pos, d.mutex, hk}
		if n := seen[kk]; n >= 2 {
			continue // two instances per key: the first and one more are enough in practice
		}
		seen[kk]++
		out = append(out, d)
	}
	return out
}

// withoutHandedOff drops the locks another goroutine unlocked (a mutex handed to a
// flusher, as prometheus/client_golang's summary does): a locker waits for nothing while
// such a lock is in flight, the goroutine that unlocks it does, so it closes no cycle.
func withoutHandedOff(r *Result, held []heldLock) []heldLock {
	if len(r.facts.handedOff) == 0 || !slices.ContainsFunc(held, func(h heldLock) bool { return r.facts.handedOff[h.ev] }) {
		return held
	}
	return slices.DeleteFunc(slices.Clone(held), func(h heldLock) bool { return r.facts.handedOff[h.ev] })
}

func cycleKey(r *Result, path []*lockDep) string {
	var parts []string
	for _, d := range path {
		parts = append(parts, fmt.Sprint(r.Trace.Events[d.ev].Pos, "/", d.mutex))
	}
	slices.Sort(parts)
	return fmt.Sprint(parts)
}

func cycleFinding(r *Result, cyc []*lockDep, writers map[*lockDep]int32) Finding {
	conf := Actual
	for _, d := range cyc {
		if r.Trace.Events[d.ev].Post != 0 {
			conf = Predicted
		}
	}
	for _, w := range writers {
		if r.Trace.Events[w].Post != 0 {
			conf = Predicted
		}
	}
	cyc = closingFirst(r, cyc)
	// primary: the request that closes the cycle; related: the lock each request waits for
	// (held by the next goroutine), then the other requests
	var ops []op
	ops = append(ops, op{"lock", cyc[0].ev})
	var desc []string
	for k, d := range cyc {
		heldEv := int32(-1)
		for _, h := range d.held {
			if h.mutex == cyc[(k+len(cyc)-1)%len(cyc)].mutex {
				heldEv = h.ev
			}
		}
		if heldEv >= 0 {
			ops = append(ops, op{"held lock", heldEv})
		}
		if k > 0 {
			ops = append(ops, op{"lock", d.ev})
		}
		where := "Lock"
		if d.read {
			where = "RLock"
		}
		behind := ""
		if w, ok := writers[d]; ok {
			ops = append(ops, op{"writer lock", w})
			behind = fmt.Sprintf(", queued behind a writer's Lock at %s that waits for the next goroutine's read lock (a pending writer blocks new readers)", r.at(w))
		}
		desc = append(desc, fmt.Sprintf("%s of %s at %s while holding the lock taken at %s%s", where, r.operand(d.ev, "a mutex"), r.at(d.ev), r.at(heldEv), behind))
	}
	between := fmt.Sprintf("%d goroutines", len(cyc))
	if n := len(distinct(writers)); n == 1 {
		between += " and a pending writer"
	} else if n > 1 {
		between += fmt.Sprintf(" and %d pending writers", n)
	}
	msg := fmt.Sprintf("lock order cycle between %s: %s; nothing orders them, so each can wait for the next forever",
		between, joinAnd(desc))
	return r.newFinding("cyclic-deadlock", conf, msg, ops...)
}

// closingFirst rotates a cycle so that it starts with the request that closes it: the one
// of the goroutine started last in the spawn tree (spawnPath), which does not depend on the
// schedule. The cycle walk starts at the earliest recorded request instead, so the finding's
// primary position, and its fingerprint, would move between runs that interleave the same
// goroutines differently.
func closingFirst(r *Result, cyc []*lockDep) []*lockDep {
	memo := map[int32][]int{}
	best := 0
	for k, d := range cyc {
		c := slices.Compare(r.spawnPath(d.g, memo), r.spawnPath(cyc[best].g, memo))
		if c > 0 || (c == 0 && d.ev > cyc[best].ev) {
			best = k
		}
	}
	return append(slices.Clone(cyc[best:]), cyc[:best]...)
}

// spawnPath is goroutine g's place in the spawn tree: for each spawn from the first recorded
// goroutine down to g, how many spawns its parent made before it. Program order makes it the
// same in every run of the test; a goroutine whose spawn was not recorded has an empty path.
func (r *Result) spawnPath(g int32, memo map[int32][]int) []int {
	if p, ok := memo[g]; ok {
		return p
	}
	memo[g] = nil // a spawn cycle (corrupt trace) ends here
	var path []int
	if g >= 0 && int(g) < len(r.Goroutines) {
		if s := r.Goroutines[g].Spawn; s >= 0 && s < len(r.Trace.Events) {
			spawn := &r.Trace.Events[s]
			if parent := r.gOf[s]; parent >= 0 && parent != g {
				path = slices.Clone(r.spawnPath(parent, memo))
			}
			ordinal := 0
			for i := range r.Trace.Events {
				if e := &r.Trace.Events[i]; e.Kind == trace.KindGoSpawn && e.G == spawn.G && e.Pre < spawn.Pre {
					ordinal++
				}
			}
			path = append(path, ordinal)
		}
	}
	memo[g] = path
	return path
}

func joinAnd(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	out := ""
	for i, x := range s {
		switch {
		case i == 0:
			out = x
		case i == len(s)-1:
			out += " and " + x
		default:
			out += ", " + x
		}
	}
	return out
}

var MixedDeadlock = &Detector{
	Name: "mixed-deadlock",
	Doc: `A deadlock cycle through a held lock and a channel operation: a goroutine holds a lock across a send or receive whose partner must first take that lock.

If the holder reaches the channel operation first, it waits for the partner while the
partner waits for the lock. It is predicted when the partner goroutine acquired the lock
before its channel operation and that acquisition is not ordered with the holder's (ignoring
the mutex's own ordering). A select with a default case (or a non-blocking send or
receive) under the lock is not reported: it never waits, so it cannot hold the lock while
blocked; nor a select with a case on a one-shot timer's channel (time.After, a Timer),
which ends its wait at the deadline, nor a receive from a channel its own goroutine closed
before it (a drain of the buffer). Fix it by not holding locks across channel operations (copy what
is needed, unlock, then send), or by buffering the channel so the send cannot block.`,
	Run: func(r *Result) []Finding {
		var out []Finding
		for _, m := range r.facts.mixed {
			if r.cannotWaitForever(m.op) {
				continue // a select with default or a timer's case, a drain of a closed channel
			}
			msg := fmt.Sprintf("%s at %s holds %s (locked at %s) while its partner at %s needs that lock first (at %s): if this side locks first, both wait forever",
				r.chanOpName(m.op), r.at(m.op), r.operand(m.held, "a lock"), r.at(m.held), r.at(m.partner), r.at(m.partnerLock))
			out = append(out, r.newFinding("mixed-deadlock", Predicted, msg,
				op{"channel operation", m.op}, op{"partner's lock", m.partnerLock}, op{"held lock", m.held}, op{"partner", m.partner}))
		}
		// happened: a channel operation blocked under a lock that another blocked goroutine requests
		for _, b := range r.facts.blockedUnderLock {
			if r.cannotWaitForever(b.ev) {
				continue // its timer ends the wait: the lock is released then
			}
			for _, j := range r.facts.blocked {
				ev := &r.Trace.Events[j]
				if r.gOf[j] == r.gOf[b.ev] || (ev.Kind != trace.KindLock && ev.Kind != trace.KindRLock) {
					continue
				}
				for _, h := range b.held {
					x := r.eng.objOf[j]
					if x == h.mutex {
						msg := fmt.Sprintf("%s at %s is blocked forever holding %s (locked at %s), which the goroutine blocked at %s waits for",
							r.chanOpName(b.ev), r.at(b.ev), r.operand(h.ev, "a lock"), r.at(h.ev), r.at(j))
						out = append(out, r.newFinding("mixed-deadlock", Actual, msg,
							op{"channel operation", b.ev}, op{"partner's lock", j}, op{"held lock", h.ev}))
					}
				}
			}
		}
		return out
	},
}

func (r *Result) chanOpName(i int32) string {
	switch ev := &r.Trace.Events[i]; ev.Kind {
	case trace.KindChanSend:
		return "send on " + r.operand(i, "a channel")
	case trace.KindChanRecv:
		return "receive from " + r.operand(i, "a channel")
	case trace.KindSelect:
		return "select"
	}
	return "channel operation"
}
