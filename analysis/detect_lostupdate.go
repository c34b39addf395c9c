package analysis

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/goweave/goweave/analysis/trace"
)

// LostUpdate reports a Store to an atomic value that wrote back a value its goroutine had
// seen there, over another goroutine's write in between.
var LostUpdate = &Detector{
	Name: "lost-update",
	Doc: `A Store to an atomic value that restores a value its goroutine saw there, over another goroutine's write made in between: that write is lost.

The classic shape is a rollback: a goroutine replaces a state with CompareAndSwap(old,
new), a later step fails, and it puts the old state back with Store(old); a goroutine that
changed the state meanwhile (cleared it, advanced it) has its change silently undone. A
read-then-write-back (x := v.Load(); ...; v.Store(x)) loses an update the same way. Each
operation is atomic; the sequence is not. It is reported when it happened in the run: the
recorder keeps, with each atomic operation of the module's code, the word it read or
replaced, and the Store is reported when the value it wrote (what the next operation on
the word found) is the value its goroutine saw at its previous operation on the word (a
Load, or the old value of a read-modify-write), while the value it replaced was a
different one, stored by another goroutine after that previous operation (a Store that
changed the word; a read-modify-write of another goroutine is not taken as the lost write,
since its recorded word may be older than the operation under contention). A Store of a
value the goroutine did not see there before (a flag set to true by two goroutines) is
never reported, nor a zero written back (words are named by address, a collected word's
address is reused, and new memory is zero: the zero read may have been another variable's).
Fix it by making the write conditional on nothing having changed:
CompareAndSwap(new, old) for a rollback, a CompareAndSwap loop for a read-modify-write, or
a mutex around the whole sequence.`,
	Run: func(r *Result) []Finding { return r.lostUpdates() },
}

// lostUpdateLookBack bounds how far back a Store looks for its goroutine's previous
// operation on the same word.
const lostUpdateLookBack = 64

func (r *Result) lostUpdates() []Finding {
	evs := r.Trace.Events
	byAddr := map[uint64][]int32{}
	for i := range evs {
		e := &evs[i]
		switch e.Kind {
		case trace.KindAtomicLoad, trace.KindAtomicStore, trace.KindAtomicRMW:
		default:
			continue
		}
		if !e.Flags.Has(trace.FlagValueUsed) || e.Flags.Has(trace.FlagInternal) {
			continue // no value recorded (an older recorder, sync.Map), or the library's own
		}
		byAddr[e.A] = append(byAddr[e.A], int32(i))
	}
	var out []Finding
	seen := map[[3]uint32]bool{}
	for _, ops := range byAddr {
		slices.SortFunc(ops, func(a, b int32) int { return cmp.Or(cmp.Compare(evs[a].Pre, evs[b].Pre), cmp.Compare(a, b)) })
		for k := 0; k+1 < len(ops); k++ {
			store := &evs[ops[k]]
			if store.Kind != trace.KindAtomicStore {
				continue
			}
			written := evs[ops[k+1]].B // what the next operation found: the Store's value
			// the goroutine's previous operation on the word
			prev := -1
			for j := k - 1; j >= 0 && j >= k-lostUpdateLookBack; j-- {
				if evs[ops[j]].G == store.G {
					prev = j
					break
				}
			}
			if prev < 0 {
				continue
			}
			seenOp := &evs[ops[prev]]
			if seenOp.Kind == trace.KindAtomicStore {
				continue // its own write, not a value it saw
			}
			// What the goroutine knew was there after its operation (its own write, for a
			// CompareAndSwap that succeeded), against what the Store replaced: equal, and
			// nobody changed the word in between (a failed CompareAndSwap writes nothing).
			knew := evs[ops[prev+1]].B
			// A zero written back is no evidence: words are named by address, the GC
			// reuses addresses, and zero is what every new allocation holds, so a nil
			// the goroutine read may have been another variable's (xsync at its fix,
			// recorded whole: a bucket's nil next pointer, then a slot of a later table's
			// bucket at that address deleted by storing nil).
			if written == 0 || written != seenOp.B || store.B == seenOp.B || store.B == knew {
				continue // not a restore, or nothing else was overwritten
			}
			// the other goroutine's Store that changed the word to what the Store replaced. Not
			// a read-modify-write: its word is read by the hook before the operation, not
			// with it, so under contention two CompareAndSwaps both record the old value and
			// the one that failed looks like a write (go-redis's checkMinIdleConns).
			other := -1
			for j := k - 1; j > prev; j-- {
				e := &evs[ops[j]]
				if e.G != store.G && e.Kind == trace.KindAtomicStore && evs[ops[j+1]].B != e.B && evs[ops[j+1]].B == store.B {
					other = j
					break
				}
			}
			if other < 0 {
				continue // changed by no recorded operation (a library's own)
			}
			key := [3]uint32{store.Pos, seenOp.Pos, evs[ops[other]].Pos}
			if seen[key] {
				continue
			}
			seen[key] = true
			how := "read"
			if seenOp.Kind == trace.KindAtomicRMW {
				how = "replaced"
			}
			msg := fmt.Sprintf("the Store at %s wrote back the value its goroutine %s at %s, over the value another goroutine stored at %s in between: that update is lost",
				r.at(ops[k]), how, r.at(ops[prev]), r.at(ops[other]))
			if f := r.newFinding("lost-update", Actual, msg, op{"store", ops[k]}, op{"saw the value", ops[prev]}, op{"lost write", ops[other]}); f.Kind != "" {
				out = append(out, f)
			}
		}
	}
	slices.SortFunc(out, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Positions[0].File, b.Positions[0].File), cmp.Compare(a.Positions[0].Line, b.Positions[0].Line), cmp.Compare(a.Message, b.Message))
	})
	return out
}
