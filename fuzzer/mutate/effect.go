package mutate

import "github.com/goweave/goweave/analysis/trace"

// effectStamp is when e took effect, as far as the order of operations on its object goes:
// its completion, except for the Once.Do that ran f, which took the Once when it started.
// Its completion comes after f returns, and a Do that found the Once done meanwhile returns
// at once, before it: ordered by completion, a replay would admit that late Do first and
// it would run f instead.
func effectStamp(e *trace.Event) uint64 {
	if e.Kind == trace.KindOnceDo && e.Flags.Has(trace.FlagSuccess) {
		return e.Pre
	}
	return e.Post
}

// effectKeys returns, for each event of t, its place in the order in which the run's
// operations took effect: completionKeys, with the Once.Do that ran f at its start
// (effectStamp).
func effectKeys(t *trace.Trace) []uint64 {
	keys := completionKeys(t)
	for i := range t.Events {
		if e := &t.Events[i]; e.Completed() && e.Kind == trace.KindOnceDo {
			keys[i] = 2*effectStamp(e) + 1
		}
	}
	return keys
}

// completionKeys returns, for each event of t, its place in completion order: 2*Post+1,
// except a receive that completed a sender blocked on a full buffer, which takes 2*the
// sender's completion stamp, just before it.
//
// The runtime completes such a sender inside the receive that frees its slot and stamps it
// before that receive; in completion order send k+capacity precedes receive k, which
// happens before it (the Go memory model: a buffered channel used as a semaphore orders
// what the releaser did before its receive with what the woken sender does next). The
// analysis walks that receive first too (analysis/rules_chan.go, freeingRecvFirst), under
// the same conditions: the receive was requested before the sender completed (its
// goroutine did nothing in between) and the send whose value it took completed before the
// woken one. Ordered by completion instead, a schedule admitted the woken sender, and then
// what its goroutine did next, before the receive it must wait for.
func completionKeys(t *trace.Trace) []uint64 {
	keys := make([]uint64, len(t.Events))
	chans := map[uint64]*seqs{}
	ch := func(obj uint64) *seqs {
		c := chans[obj]
		if c == nil {
			c = &seqs{}
			chans[obj] = c
		}
		return c
	}
	for i := range t.Events {
		e := &t.Events[i]
		keys[i] = 2*e.Post + 1
		switch e.Kind {
		case trace.KindChanMake:
			ch(e.Obj).capacity = e.A
		case trace.KindChanSend, trace.KindChanRecv:
			if e.C != 0 {
				ch(e.Obj).capacity = e.C
			}
		}
		if !e.Completed() {
			continue
		}
		if obj, dir, seq, closed := transfer(e); dir != 0 && seq > 0 && !closed {
			c := ch(obj)
			if dir > 0 {
				c.sends = bySeqSet(c.sends, seq, i)
			} else {
				c.recvs = bySeqSet(c.recvs, seq, i)
			}
		}
	}
	for _, c := range chans {
		if c.capacity == 0 {
			continue
		}
		for n := c.capacity; n < uint64(len(c.sends)); n++ { // send seq n+1 took the slot receive n+1-capacity freed
			s, r, own := c.sends[n], bySeqGet(c.recvs, n+1-c.capacity), c.sends[n-c.capacity]
			if s < 0 || r < 0 || own < 0 {
				continue
			}
			es, er := &t.Events[s], &t.Events[r]
			if er.Post <= es.Post || er.Pre >= es.Post {
				continue // the receive completed first, or came after the send: completion order holds
			}
			if t.Events[own].Post >= es.Post {
				continue // its own value was sent after: it cannot have freed a slot before
			}
			keys[r] = 2 * es.Post
		}
	}
	return keys
}

// seqs is one channel's completed sends and value receives by sequence number (event index
// at seq-1, -1 unknown).
type seqs struct {
	capacity     uint64
	sends, recvs []int32
}

func bySeqSet(s []int32, seq uint64, i int) []int32 {
	if seq > uint64(len(s))+1<<20 { // a corrupt sequence number must not allocate absurdly
		return s
	}
	for uint64(len(s)) < seq {
		s = append(s, -1)
	}
	s[seq-1] = int32(i)
	return s
}

func bySeqGet(s []int32, seq uint64) int32 {
	if seq == 0 || seq > uint64(len(s)) {
		return -1
	}
	return s[seq-1]
}
