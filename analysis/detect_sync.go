package analysis

import (
	"fmt"
)

var NegativeWaitGroup = &Detector{
	Name: "negative-waitgroup",
	Doc: `A WaitGroup counter that goes, or can go, below zero.

A negative counter panics ("sync: negative WaitGroup counter"). It is predicted when some
Done cannot be matched to an Add that happens before it (a maximum bipartite matching of
Dones to HB-earlier Add units leaves it out): the classic cause is calling wg.Add inside
the spawned goroutine or after the go statement, so a fast worker's Done can come first;
another is a Done on two paths (an error branch and a defer), or a Done per value received
from a channel that also carries values no Add counted (a drain loop counting stop
signals): the send of such a value is then a related position. Fix it by calling Add before
the go statement and Done exactly once per Add (defer wg.Done() at the top of the goroutine,
or wg.Go).`,
	Run: func(r *Result) []Finding {
		var out []Finding
		actual := map[int32]bool{}
		for _, p := range r.facts.negativeWG {
			actual[p.a] = true
			msg := fmt.Sprintf("%s at %s took the WaitGroup counter below zero", wgCall(r, p.a), r.at(p.a))
			out = append(out, r.withUncountedSends(r.newFinding("negative-waitgroup", Actual, msg, op{"done", p.a}, op{"previous add or done", p.b}), p.a)) // wg_uncounted.go
		}
		for _, wf := range r.facts.wgs {
			for _, j := range unmatchedDones(r, wf) {
				d := wf.dones[j]
				if actual[d] {
					continue
				}
				rel := int32(-1)
				for _, a := range wf.adds {
					if !addBeforeDone(r, wf, a, j) {
						rel = a
						break
					}
				}
				msg := fmt.Sprintf("%s at %s is not ordered after an Add it could balance", wgCall(r, d), r.at(d))
				if rel >= 0 {
					msg = fmt.Sprintf("%s at %s may run before the Add at %s it balances: the counter can go below zero",
						wgCall(r, d), r.at(d), r.at(rel))
				}
				out = append(out, r.newFinding("negative-waitgroup", Predicted, msg, op{"done", d}, op{"add", rel}))
			}
		}
		return out
	},
}

func wgCall(r *Result, i int32) string {
	if int64(r.Trace.Events[i].A) == -1 {
		return r.operand(i, "wg") + ".Done()"
	}
	return fmt.Sprintf("%s.Add(%d)", r.operand(i, "wg"), int64(r.Trace.Events[i].A))
}

// addBeforeDone reports whether Add a happens before wf.dones[j] (the same WaitGroup's),
// from the adder clock entries the engine kept for that Done.
func addBeforeDone(r *Result, wf *wgFacts, a int32, j int) bool {
	k := wf.adders.index(r.gOf[a])
	if k < 0 {
		return false
	}
	return r.epoch[a] <= wf.proj[j*len(wf.adders.list)+k]
}

// maxMatching bounds the size of one matching problem (Adds x Dones).
const maxMatching = 1 << 20

// unmatchedDones matches every Done unit to an Add unit that happens before it (Kuhn's
// augmenting paths, Adds with capacity = delta) and returns the Dones left unmatched, as
// indices into wf.dones.
func unmatchedDones(r *Result, wf *wgFacts) []int {
	if len(wf.dones) == 0 || len(wf.adds)*len(wf.dones) > maxMatching || wf.noProj || wf.covered() || everyDoneCovered(r, wf) {
		return nil
	}
	capacity := make([]int, len(wf.adds))
	for k, a := range wf.adds {
		capacity[k] = int(min(int64(r.Trace.Events[a].A), maxAddUnits))
	}
	// edges[j] = adds Done j may take a unit from
	edges := make([][]int, len(wf.dones))
	for j := range wf.dones {
		for k, a := range wf.adds {
			if addBeforeDone(r, wf, a, j) {
				edges[j] = append(edges[j], k)
			}
		}
	}
	owners := make([][]int, len(wf.adds)) // Done units holding units of each Add
	var visited []bool
	var augment func(j int) bool
	augment = func(j int) bool {
		for _, k := range edges[j] {
			if visited[k] {
				continue
			}
			visited[k] = true
			if len(owners[k]) < capacity[k] {
				owners[k] = append(owners[k], j)
				return true
			}
			for n, other := range owners[k] {
				if augment(other) {
					owners[k][n] = j
					return true
				}
			}
		}
		return false
	}
	var out []int
	for j, d := range wf.dones {
		units := int(min(-int64(r.Trace.Events[d].A), 1<<16))
		for u := 0; u < units; u++ {
			visited = make([]bool, len(wf.adds))
			if !augment(j) {
				out = append(out, j)
				break
			}
		}
	}
	return out
}

// everyDoneCovered reports the common case that needs no matching: every Add happens
// before every Done and the Adds have units for all Dones, so any assignment matches them
// all (the usual Add, go, Done, Wait of one fan-out).
func everyDoneCovered(r *Result, wf *wgFacts) bool {
	addUnits, doneUnits := 0, 0
	for _, a := range wf.adds {
		addUnits += int(min(int64(r.Trace.Events[a].A), maxAddUnits))
	}
	for _, d := range wf.dones {
		doneUnits += int(min(-int64(r.Trace.Events[d].A), 1<<16))
	}
	if addUnits < doneUnits {
		return false
	}
	for j := range wf.dones {
		for _, a := range wf.adds {
			if !addBeforeDone(r, wf, a, j) {
				return false
			}
		}
	}
	return true
}

var UnlockOfUnlocked = &Detector{
	Name: "unlock-of-unlocked",
	Doc: `An Unlock or RUnlock of a mutex that is not locked, or an unlock that may run before the lock it releases.

Unlocking an unlocked mutex is a fatal error that cannot be recovered. It happens when a
path unlocks twice (an early Unlock in a branch plus a deferred or trailing one) or when a
goroutine releases a lock another goroutine acquired without being ordered after that
acquisition. Fix it by pairing each Lock with exactly one Unlock on every path (prefer
defer mu.Unlock() right after Lock), and by not handing locks between goroutines.`,
	Run: func(r *Result) []Finding {
		var out []Finding
		for _, p := range r.facts.unlockOfUnlocked {
			m := r.operand(p.a, "the mutex")
			msg := fmt.Sprintf("unlock of %s at %s found it unlocked", m, r.at(p.a))
			if p.b >= 0 {
				msg = fmt.Sprintf("unlock of %s at %s found it unlocked: it was already unlocked at %s", m, r.at(p.a), r.at(p.b))
			}
			out = append(out, r.newFinding("unlock-of-unlocked", Actual, msg, op{"unlock", p.a}, op{"earlier unlock", p.b}))
		}
		for _, p := range r.facts.unorderedUnlocks {
			msg := fmt.Sprintf("unlock of %s at %s releases the lock taken at %s in another goroutine but is not ordered after it: it may find the mutex unlocked",
				r.operand(p.a, "the mutex"), r.at(p.a), r.at(p.b))
			out = append(out, r.newFinding("unlock-of-unlocked", Predicted, msg, op{"unlock", p.a}, op{"lock", p.b}))
		}
		return out
	},
}
