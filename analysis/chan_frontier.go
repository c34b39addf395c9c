package analysis

import "slices"

// A channel's users are scanned at each operation for those that do not happen before it
// (flow pairs, concurrent receives): with many goroutines using one channel and all of
// them ordered (a fan-in through main, workers started one after another), every scan
// found nothing and cost the length of the list: time squared. A frontier remembers an
// operation that every user up to some length of the list happens before; an operation
// that happens after the frontier only scans what came since.

// userFrontier: every user in users[class][:n] happens before the operation of goroutine
// g with epoch ep, except the entries updated in place since (dirty, indices < n).
type userFrontier struct {
	g     int32
	ep    uint32
	n     int32
	dirty []int32
}

// chanFrontiers are a channel's frontiers, per class; allocated once a list is long.
type chanFrontiers [numClasses]userFrontier

// frontierMin is the list length from which a frontier is kept (shorter lists are
// scanned: cheaper than keeping one).
const frontierMin = 16

// unorderedUsers returns the indices, in list order, of the users of class on channel x
// that are in another goroutine than g and do not happen before g's current point by its
// strong clock. The slice is reused by the next call.
func (e *engine) unorderedUsers(ch *chanState, class uint8, g int32) []int32 {
	hits := e.userHits[:0]
	vc := &e.vc[g]
	list := ch.users[class]
	var fr *userFrontier
	if ch.front != nil {
		fr = &ch.front[class]
	}
	if fr != nil && fr.n > 0 && (fr.g == g || fr.ep <= vc.tree(fr.g)) {
		// the frontier happens before g's point: so does every user it covers
		if len(fr.dirty) > 1 {
			slices.Sort(fr.dirty)
			fr.dirty = slices.Compact(fr.dirty)
		}
		for _, k := range fr.dirty {
			if u := &list[k]; u.g != g && u.ep > vc.tree(u.g) {
				hits = append(hits, k)
			}
		}
		for k := int(fr.n); k < len(list); k++ {
			if u := &list[k]; u.g != g && u.ep > vc.tree(u.g) {
				hits = append(hits, int32(k))
			}
		}
	} else if ch.mayBeUnordered(class, g, vc) {
		for k := range list {
			if u := &list[k]; u.g != g && u.ep > vc.tree(u.g) {
				hits = append(hits, int32(k))
			}
		}
	}
	e.userHits = hits
	return hits
}

// advanceFrontier makes operation i of goroutine g the frontier of class on ch when every
// user of the class happens before it (unorderedUsers found none). Only for a clock read
// before i synchronized: whoever later knows (g, epoch of i) knows at least that clock.
func (e *engine) advanceFrontier(ch *chanState, class uint8, g, i int32) {
	n := len(ch.users[class])
	if n < frontierMin {
		return
	}
	if ch.front == nil {
		ch.front = new(chanFrontiers)
		e.extra += int64(len(ch.front)) * 40
	}
	fr := &ch.front[class]
	fr.g, fr.ep, fr.n = g, e.r.epoch[i], int32(n)
	fr.dirty = fr.dirty[:0]
}

// userUpdated notes that the user at index k of class on ch now holds a later operation,
// which the frontier does not cover.
func (ch *chanState) userUpdated(class uint8, k int32) {
	if ch.front == nil {
		return
	}
	fr := &ch.front[class]
	if k >= fr.n {
		return
	}
	if len(fr.dirty) >= int(fr.n)/2+8 {
		// most of the list changed since: a plain scan is as cheap
		fr.n, fr.dirty = 0, nil
		return
	}
	fr.dirty = append(fr.dirty, k)
}
