package analysis

import (
	"fmt"

	"github.com/goweave/goweave/analysis/trace"
)

// Where a negative WaitGroup counter's extra Done came from, when Dones count the values a
// goroutine receives from a channel (a drain loop: `for range tasks { wg.Done() }`) and the
// channel also carries values no Add counted (a stop signal, a nil task): the Done is only
// where the counter went below zero; the send of the uncounted value is the bug's other
// half, often in another part of the package (issue 21: pond's purger sends nil tasks that
// stop's drain counts; reported at worker.go's Done alone, the purger's send in no
// position). The finding gets the sends as related positions; its fingerprint stays that
// of the Done (the sends are found in some runs only).

// maxUncountedSends bounds the sends one finding names.
const maxUncountedSends = 2

// uncountedSend is a Done of the WaitGroup that counted a value received from a channel
// whose sender made no Add on that WaitGroup for it.
type uncountedSend struct {
	send, recv, done int32
}

// withUncountedSends adds to f, the finding of the Done at event neg that took its
// WaitGroup below zero, the sends whose values Dones of that WaitGroup up to neg counted
// although their senders added nothing for them (see above).
func (r *Result) withUncountedSends(f Finding, neg int32) Finding {
	if f.Kind == "" {
		return f
	}
	us := r.uncountedSends(neg)
	seen := map[uint32]bool{}
	var named []uncountedSend
	for _, u := range us {
		pos := r.Trace.Events[u.send].Pos
		if seen[pos] || r.Trace.Position(pos).File == "" {
			continue
		}
		seen[pos] = true
		named = append(named, u)
		if len(named) == maxUncountedSends {
			break
		}
	}
	for i, u := range named {
		p := r.Trace.Position(r.Trace.Events[u.send].Pos)
		if p.Column == 0 {
			p.Column = column(r.Trace.Events[u.send].Kind, p.File, p.Line)
		}
		f.Positions = append(f.Positions, Position{Role: "sent a value no Add counted", File: p.File, Line: p.Line, Column: p.Column})
		if i == 0 {
			f.Message += fmt.Sprintf("; the Done at %s counted a value received at %s, sent at %s with no Add on the WaitGroup for it",
				r.at(u.done), r.at(u.recv), r.at(u.send))
		}
	}
	return f
}

// chanSeq names one value of a channel: its k-th completed send.
type chanSeq struct {
	ch  uint64
	seq uint64
}

// uncountedSends scans the trace up to event neg (a Done on WaitGroup w) for Dones of w
// each preceded in its goroutine and function, since that goroutine's previous Add or Done
// on w there, by a value receive, whose value's sender sent it without an Add on w just before (below). The
// sends are looked up by the receive's sequence number.
func (r *Result) uncountedSends(neg int32) []uncountedSend {
	evs := r.Trace.Events
	w := evs[neg].Obj
	// Per goroutine, the last of its Adds on w, go statements and sends: a send counted by
	// an Add follows it with neither a send nor a go statement between (the go statement
	// hands the added unit to the new goroutine: a task run by a worker it starts).
	const (
		markAdd = iota + 1
		markOther
	)
	mark := map[uint64]int{}
	inherited := map[uint64]bool{} // goroutine -> started right after its parent's Add on w
	// A Done counts the value its function received last (a drain loop's body): a Done
	// after a task that received from a channel of its own counts the task, not that value
	// (seen in pond's suite: a task's receive from the test's channel, then the pool's
	// Done in another function).
	type gfn struct {
		g  uint64
		fn string
	}
	fnOf := func(i int32) string { return r.Trace.Position(evs[i].Pos).Func }
	type received struct {
		ev  int32
		val chanSeq
	}
	lastRecv := map[gfn]received{} // goroutine and function -> its last value receive since its last Add/Done on w
	counted := map[int32]bool{}    // send -> counted by an Add (above)
	sends := map[chanSeq]int32{}   // value -> its send
	var pending []uncountedSend    // Dones that counted a received value: sends resolved below
	var pendingSeq []chanSeq
	noteSend := func(i int32, ch, seq uint64) {
		g := evs[i].G
		m, ok := mark[g]
		counted[i] = m == markAdd || !ok && inherited[g]
		mark[g] = markOther
		sends[chanSeq{ch, seq}] = i
	}
	for i := int32(0); i <= neg && int(i) < len(evs); i++ {
		ev := &evs[i]
		switch ev.Kind {
		case trace.KindGoSpawn:
			if ev.G != 0 {
				inherited[ev.A] = mark[ev.G] == markAdd
				mark[ev.G] = markOther
			}
		case trace.KindChanSend:
			if ev.Completed() && ev.A > 0 && ev.Flags&trace.FlagClosed == 0 {
				noteSend(i, ev.Obj, ev.A)
			}
		case trace.KindChanRecv:
			if ev.Completed() && ev.A > 0 && ev.Flags&trace.FlagClosed == 0 {
				lastRecv[gfn{ev.G, fnOf(i)}] = received{i, chanSeq{ev.Obj, ev.A}}
			}
		case trace.KindSelect:
			if ev.A == trace.SelectDefault || ev.Flags&trace.FlagSuccess == 0 || ev.Flags&trace.FlagClosed != 0 || ev.B == 0 {
				break
			}
			for _, c := range ev.Cases {
				if uint64(c.Index) != ev.A {
					continue
				}
				if c.Send {
					noteSend(i, c.Obj, ev.B)
				} else {
					lastRecv[gfn{ev.G, fnOf(i)}] = received{i, chanSeq{c.Obj, ev.B}}
				}
			}
		case trace.KindWgAdd, trace.KindWgDone:
			if ev.Obj != w {
				break
			}
			if ev.Kind == trace.KindWgAdd && int64(ev.A) > 0 {
				mark[ev.G] = markAdd
				delete(lastRecv, gfn{ev.G, fnOf(i)})
				break
			}
			k := gfn{ev.G, fnOf(i)}
			rv, ok := lastRecv[k]
			delete(lastRecv, k)
			if !ok {
				break
			}
			pending = append(pending, uncountedSend{send: -1, recv: rv.ev, done: i})
			pendingSeq = append(pendingSeq, rv.val)
		}
	}
	var out []uncountedSend
	for k, u := range pending {
		s, ok := sends[pendingSeq[k]]
		if !ok || counted[s] || evs[s].G == evs[u.done].G {
			continue
		}
		u.send = s
		out = append(out, u)
	}
	return out
}
