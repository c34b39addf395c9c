package analysis

import (
	"slices"

	"github.com/goweave/goweave/analysis/trace"
)

// Why a run stopped at its time limit hangs. A run killed at its time limit while some
// goroutine was still busy (sleeping, computing, in a system call) is slow, as far as the
// wait-for graph can tell (slowNotStuck), and the deadlock detector stays silent. Two
// proofs still show goroutines that could never have proceeded however long the run had
// gone on:
//
//   - The GC's leak detection, which goweave's supervisor asks the process to run at the
//     time limit (META timelimit=1 with leakgc=1, Go 1.26 and later): a goroutine it marked
//     leaked waits on something no live goroutine or global can reach. Reported as the leak
//     kind of its operation (leak-chan, leak-select, ...).
//   - A lock cycle in the trace, on every Go release: goroutines blocked in Lock or RLock,
//     each waiting for the next, the last for the first (a goroutine locking a mutex it
//     holds is a cycle of one), and those waiting for one of them: a request waits for the
//     mutex's write holder, a Lock of an RWMutex for its readers, an RLock for the writers
//     blocked on it (lockWaitees). Only a holder unlocks its mutex, so none of them can
//     proceed; a holder counts only when it is known to be the unlocker (knownUnlocker:
//     the mutex was never handed to another goroutine, the holder started none since). Reported as deadlock, with the
//     operations the GC proved leaked (a Wait for the cycle's goroutines): one stuck state,
//     one finding at the cycle, with the others as related positions.
//
// A goroutine blocked on a channel that a busy goroutine may still hold is not reported
// from the trace alone: the busy goroutine could still send (a slow sender is not a leak).
//
// A run the patched runtime found stuck by its state and ended itself (META stuck=global,
// lockcycle or leaked, runtimepatch's zz_goweave_stuck.go) is explained the same way: it
// ran the same leak detection and ended with the same signal, only earlier.

// stoppedEarly reports whether the run was stopped before it ended by itself, with the
// GC's leak detection run then: at its time limit or when the runtime found it stuck.
func (r *Result) stoppedEarly() bool {
	return r.Trace.Meta["timelimit"] == "1" || r.Trace.Meta["stuck"] != ""
}

// stoppedWhy says why such a run was stopped, for a finding's message.
func (r *Result) stoppedWhy() string {
	switch r.Trace.Meta["stuck"] {
	case "":
		return "stopped at its time limit"
	case "lockcycle":
		return "ended when the runtime found the lock cycle"
	case "leaked":
		return "ended when the runtime's leak detection proved the test goroutine blocked for good"
	default:
		return "ended when the runtime found every goroutine blocked"
	}
}

// timeLimitLeaks returns the goroutines the GC's leak detection proved leaked when a
// slow run was stopped at its time limit: nothing when the run is stuck (the deadlock
// detector reports every blocked operation then) or hangs in a lock cycle (reported as one
// stuck state with these: timeLimitDeadlocks).
func (r *Result) timeLimitLeaks() []leak {
	if !r.stoppedEarly() || !r.gcVerdict() || r.end() != endStuck {
		return nil
	}
	blocked := r.blockedForever()
	test, ok := r.testGoroutine()
	if !ok || !r.slowNotStuck(test, blocked, r.waitGraph(blocked)) {
		return nil
	}
	if c := r.heldLockCycles(blocked); len(c.stuck) > 0 {
		return nil
	}
	var out []leak
	for _, i := range r.gcLeakedAtTimeLimit(blocked) {
		out = append(out, leak{kind: leakKind(&r.Trace.Events[i]), ev: i, related: r.partners(i), proven: true, timeLimit: true})
	}
	return out
}

// gcLeakedAtTimeLimit returns the blocked operations whose goroutines the GC's leak
// detection, run at the time limit, marked leaked.
func (r *Result) gcLeakedAtTimeLimit(blocked []int32) []int32 {
	if !r.stoppedEarly() || !r.gcVerdict() {
		return nil
	}
	var out []int32
	for _, i := range blocked {
		if g := r.Goroutines[r.gOf[i]]; g.Alive && g.Status == statusLeaked && !r.timerMayWake(i) {
			out = append(out, i)
		}
	}
	return out
}

// blockedForever returns the blocked operations a goroutine can be stuck in.
func (r *Result) blockedForever() []int32 {
	var blocked []int32
	for _, i := range r.facts.blocked {
		if leakKind(&r.Trace.Events[i]) != "" && !r.endedBubble(r.gOf[i]) { // bubbleRule
			blocked = append(blocked, i)
		}
	}
	return blocked
}

// heldCycles is the lock cycles among the blocked operations of a run.
type heldCycles struct {
	stuck  []int32         // the blocked Locks on a cycle or waiting for one, in trace order
	lockOf map[int32]int32 // goroutine -> its blocked Lock or RLock
}

// heldLockCycles finds the goroutines blocked in Lock or RLock that wait for goroutines
// themselves blocked in Lock or RLock (lockWaitees: the write holder of the mutex; for a
// Lock of an RWMutex its readers, for an RLock the writers pending on it), and so on until
// a goroutine comes back: those on the cycle and those waiting for it. Each edge is a
// goroutine that must move before the waiter can, so none of them ever moves.
func (r *Result) heldLockCycles(blocked []int32) heldCycles {
	evs := r.Trace.Events
	c := heldCycles{lockOf: map[int32]int32{}}
	for _, i := range blocked {
		if k := evs[i].Kind; k == trace.KindLock || k == trace.KindRLock {
			c.lockOf[r.gOf[i]] = i
		}
	}
	next := map[int32][]int32{} // goroutine -> the goroutines it waits for, themselves blocked
	for g, i := range c.lockOf {
		for _, h := range r.lockWaitees(i) {
			if r.Trace.Events[h].Post != 0 && !r.knownUnlocker(h) {
				continue // a holder that may not be the unlocker (cycle_blocked.go)
			}
			if gh := r.gOf[h]; gh >= 0 {
				if _, blockedToo := c.lockOf[gh]; blockedToo && !slices.Contains(next[g], gh) {
					next[g] = append(next[g], gh)
				}
			}
		}
	}
	// a goroutine is stuck when it reaches a cycle: nodes on a cycle are the members of a
	// strongly connected component of two or more, or waiting for themselves
	nodes := sortedKeys(c.lockOf)
	comp, members := sccOf(next, nodes)
	stuckG := map[int32]bool{}
	for _, g := range nodes {
		if len(members[comp[g]]) > 1 || slices.Contains(next[g], g) {
			stuckG[g] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for _, g := range nodes {
			if !stuckG[g] && slices.ContainsFunc(next[g], func(h int32) bool { return stuckG[h] }) {
				stuckG[g], changed = true, true
			}
		}
	}
	for _, g := range nodes {
		if stuckG[g] {
			c.stuck = append(c.stuck, c.lockOf[g])
		}
	}
	slices.Sort(c.stuck)
	return c
}

// timeLimitDeadlocks reports the lock cycles among the blocked operations of a run stopped
// at its time limit while other goroutines were still busy, as one stuck state (one
// finding, at the cycle) with the operations the GC's leak detection proved blocked for
// good at the time limit that wait for it.
func (r *Result) timeLimitDeadlocks(blocked []int32) []Finding {
	c := r.heldLockCycles(blocked)
	if len(c.stuck) == 0 {
		return nil
	}
	stuck := slices.Clone(c.stuck)
	for _, i := range r.gcLeakedAtTimeLimit(blocked) {
		if !slices.Contains(stuck, i) {
			stuck = append(stuck, i)
		}
	}
	slices.Sort(stuck)
	return r.stuckFindings(stuck, blocked, "the run hangs ("+r.stoppedWhy()+")")
}
