package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/goweave/goweave/analysis/trace"
)

// What a run shows about a predicted lock cycle itself, for its confirmation
// (fuzzer/campaign's Judge). A run the stuck check ended, or one with goroutines blocked at
// the cycle's lines, proves nothing about the cycle: they may wait for a third goroutine,
// for other instances of the mutexes, or for a mutex handed to a goroutine that was still
// going to unlock it. The final state proves the cycle when its goroutines are parked in
// Lock or RLock at the cycle's lock sites, each waiting for the next: for the mutex's write
// holder; for a Lock of an RWMutex, its readers; for an RLock, a writer parked in Lock of
// it (a pending writer blocks new readers). Only a holder unlocks its mutex, so none of
// them can ever move. A holder counts only when it is known to be the unlocker (the rule
// of runtimepatch's stuck check): no acquisition of that mutex was unlocked by another
// goroutine in this run, and the holder started no goroutine after locking it (it may have
// handed the mutex to it).

// BlockedCycleAt reports whether the trace's final state holds such a lock cycle whose
// members are parked exactly at the positions at (one distinct goroutine per position, a
// position listed twice needing two), and describes it.
func (r *Result) BlockedCycleAt(at []Position) (string, bool) {
	if len(at) == 0 || len(at) > 2*maxCycleLen {
		return "", false
	}
	slot := func(i int32) int { // the first index of at with event i's position, or -1
		p := r.Trace.Position(r.Trace.Events[i].Pos)
		for k, q := range at {
			if q.File == p.File && q.Line == p.Line {
				return k
			}
		}
		return -1
	}
	need := map[int]int{} // position index (its first occurrence) -> goroutines needed there
	for k := range at {
		first := k
		for j := range k {
			if at[j].File == at[k].File && at[j].Line == at[k].Line {
				first = j
				break
			}
		}
		need[first]++
	}
	lockOf := map[int32]int32{} // goroutine -> its parked Lock or RLock at one of the positions
	for _, i := range r.facts.blocked {
		ev := &r.Trace.Events[i]
		g := r.gOf[i]
		if (ev.Kind == trace.KindLock || ev.Kind == trace.KindRLock) && g >= 0 && parked(r.Goroutines[g]) && slot(i) >= 0 {
			lockOf[g] = i
		}
	}
	if len(lockOf) < len(at) {
		return "", false
	}
	// next: the goroutines g waits for, among those parked at the positions, with why
	type edge struct {
		to  int32
		why string
	}
	next := map[int32][]edge{}
	for g, i := range lockOf {
		for _, h := range r.lockWaitees(i) {
			gh := r.gOf[h]
			if _, ok := lockOf[gh]; !ok || gh == g {
				continue
			}
			why := fmt.Sprintf("a writer blocked at %s", r.at(h))
			if r.Trace.Events[h].Post != 0 { // an acquisition still held, not a pending writer
				if !r.knownUnlocker(h) {
					continue
				}
				why = fmt.Sprintf("its holder (locked at %s)", r.at(h))
			}
			next[g] = append(next[g], edge{gh, why})
		}
	}
	// a cycle through the goroutines parked at the positions, using each position as often
	// as it is listed; walked from the goroutines at the first position
	used := map[int]int{}
	var path []int32
	var whys []string
	steps := 0
	var walk func(g int32) bool
	walk = func(g int32) bool {
		if steps++; steps > maxCycleSteps {
			return false // thousands of goroutines parked at the sites: not judged
		}
		for _, e := range next[g] {
			if e.to == path[0] && len(path) == len(at) {
				whys = append(whys, e.why)
				return true
			}
			if len(path) == len(at) || slices.Contains(path, e.to) {
				continue
			}
			s := slot(lockOf[e.to])
			if used[s] == need[s] {
				continue
			}
			used[s]++
			path = append(path, e.to)
			whys = append(whys, e.why)
			if walk(e.to) {
				return true
			}
			used[s]--
			path = path[:len(path)-1]
			whys = whys[:len(whys)-1]
		}
		return false
	}
	for _, g := range sortedKeys(lockOf) {
		if slot(lockOf[g]) != 0 {
			continue
		}
		clear(used)
		used[0] = 1
		path, whys = append(path[:0], g), whys[:0]
		if walk(g) {
			var parts []string
			for k, pg := range path {
				ev := &r.Trace.Events[lockOf[pg]]
				parts = append(parts, fmt.Sprintf("goroutine %d parked in %s at %s waits for goroutine %d, %s",
					r.Goroutines[pg].ID, ev.Kind, r.at(lockOf[pg]), r.Goroutines[path[(k+1)%len(path)]].ID, whys[k]))
			}
			return "lock cycle in the run's final state: " + strings.Join(parts, "; "), true
		}
	}
	return "", false
}

// knownUnlocker reports whether the goroutine of acquisition h, still held, is known to be
// the one that would unlock it: no acquisition of that mutex was unlocked by another
// goroutine in the run, and the holder started no goroutine after taking it (it may have
// handed the mutex to that goroutine, as prometheus's summary hands its mutex to a flusher).
func (r *Result) knownUnlocker(h int32) bool {
	obj := r.Trace.Events[h].Obj
	for acq := range r.facts.handedOff {
		if r.Trace.Events[acq].Obj == obj {
			return false
		}
	}
	for _, c := range r.Goroutines {
		if c.Spawn > int(h) && r.gOf[c.Spawn] == r.gOf[h] {
			return false
		}
	}
	return true
}
