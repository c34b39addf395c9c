package analysis

import "unsafe"

// Vector clocks over the dense goroutine index of one trace: entry k is the number of events
// of goroutine k known to have happened before.
//
// A clock is a persistent radix tree with reference-counted nodes (leaves of 64 entries,
// inner nodes of 32 children, as deep as the goroutine count needs; absent subtrees are
// zero) plus one entry kept beside the tree: its own goroutine's, which every event ticks.
// Copying a clock (publishing it on an unlock or a send, starting a spawned goroutine,
// keeping a snapshot) shares the tree; a later change copies only the path it changes, and
// a node nobody references any more goes back to the arena. A join skips the subtrees both
// clocks share. So memory follows what goroutines actually learn from each other, not
// goroutines squared (a dense vector per goroutine and per published clock), and a program
// with at most 64 goroutines has one leaf per clock: the dense vector it used to be.
//
// Invariant: the tree's entry for the clock's own goroutine is at most ownEp (the tree
// may hold a stale one; get answers ownEp).
type vclock struct {
	root  unsafe.Pointer // *leaf when shift is 0, else *inner; nil: all zero
	shift int32          // index bit where the root's child index starts; 0: the root is a leaf
	own   int32          // the goroutine whose entry is ownEp; -1: none
	ownEp uint32
}

const (
	leafBits = 6
	leafN    = 1 << leafBits
	fanBits  = 5
	fanN     = 1 << fanBits
)

// Nodes start with their reference count, so that retain and release need not know the kind.
type leaf struct {
	refs int32
	v    [leafN]uint32
}

type inner struct {
	refs int32
	kids [fanN]unsafe.Pointer // *inner, or *leaf under a node of shift leafBits; nil: zero
}

// get returns entry k.
func (c *vclock) get(k int32) uint32 {
	if k == c.own {
		return c.ownEp
	}
	return c.tree(k)
}

// tree returns entry k of the tree (not the own entry).
func (c *vclock) tree(k int32) uint32 {
	p := c.root
	for s := c.shift; s >= leafBits; s -= fanBits {
		if p == nil {
			return 0
		}
		p = (*inner)(p).kids[(uint32(k)>>uint(s))&(fanN-1)]
	}
	if p == nil {
		return 0
	}
	return (*leaf)(p).v[k&(leafN-1)]
}

// clockArena allocates and recycles the nodes of one analysis's clocks; it is not safe for
// concurrent use (each analysis has its own).
type clockArena struct {
	shift      int32 // of every clock: enough levels for the goroutine count
	freeLeaves []*leaf
	freeInners []*inner
	leafChunk  []leaf
	innerChunk []inner
	bytes      int64 // allocated for nodes so far (recycled nodes are counted once)
}

// newClockArena returns the arena for clocks of ng entries.
func newClockArena(ng int) *clockArena {
	a := &clockArena{}
	for n := leafN; n < ng; n *= fanN {
		if a.shift == 0 {
			a.shift = leafBits
		} else {
			a.shift += fanBits
		}
	}
	return a
}

// clock returns an empty clock whose own goroutine is own (-1: none).
func (a *clockArena) clock(own int32) vclock { return vclock{shift: a.shift, own: own} }

const nodeChunk = 64

func (a *clockArena) newLeaf() *leaf   { return newNode(&a.freeLeaves, &a.leafChunk, &a.bytes) }
func (a *clockArena) newInner() *inner { return newNode(&a.freeInners, &a.innerChunk, &a.bytes) }

// newNode takes a recycled node from free, or the next of chunk (a new chunk when it is
// used up, counted in bytes), and gives it its first reference.
func newNode[N leaf | inner](free *[]*N, chunk *[]N, bytes *int64) *N {
	var n *N
	if k := len(*free); k > 0 {
		n = (*free)[k-1]
		*free = (*free)[:k-1]
	} else {
		if len(*chunk) == 0 {
			*chunk = make([]N, nodeChunk)
			*bytes += nodeChunk * int64(unsafe.Sizeof((*chunk)[0]))
		}
		n = &(*chunk)[0]
		*chunk = (*chunk)[1:]
	}
	*(*int32)(unsafe.Pointer(n)) = 1 // refs, the first field of both node types (as retain)
	return n
}

func retain(p unsafe.Pointer) {
	if p != nil {
		*(*int32)(p)++
	}
}

// release drops one reference to node p of the level with shift s, recycling it (and
// what only it referenced) when it was the last.
func (a *clockArena) release(p unsafe.Pointer, s int32) {
	if p == nil {
		return
	}
	r := (*int32)(p)
	if *r--; *r > 0 {
		return
	}
	if s < leafBits {
		a.freeLeaves = append(a.freeLeaves, (*leaf)(p))
		return
	}
	m := (*inner)(p)
	for i := range fanN {
		a.release(m.kids[i], s-fanBits)
	}
	m.kids = [fanN]unsafe.Pointer{}
	a.freeInners = append(a.freeInners, m)
}

// assign makes dst a copy of src: sharing its tree, or for one-leaf trees copying the leaf
// into dst's when only dst has it (a copy of 256 bytes costs less than making either
// clock's next change copy the leaf).
func (a *clockArena) assign(dst, src *vclock) {
	if dst == src {
		return
	}
	if a.shift == 0 && dst.root != nil && src.root != nil && dst.root != src.root {
		if dl := (*leaf)(dst.root); dl.refs == 1 {
			dl.v = (*leaf)(src.root).v
			dst.own, dst.ownEp = src.own, src.ownEp
			return
		}
	}
	retain(src.root)
	a.release(dst.root, a.shift)
	*dst = *src
	dst.shift = a.shift
}

// soleLeaves returns the leaves of one-leaf clocks x and y when each is the only holder of
// its own: they can be changed in place, as dense vectors. nil, nil otherwise.
func (a *clockArena) soleLeaves(x, y *vclock) (xl, yl *leaf) {
	if a.shift != 0 || x.root == nil || y.root == nil || x.root == y.root {
		return nil, nil
	}
	xl, yl = (*leaf)(x.root), (*leaf)(y.root)
	if xl.refs != 1 || yl.refs != 1 {
		return nil, nil
	}
	return xl, yl
}

// snapshot returns a copy of c (sharing its tree) that nothing changes: it keeps its
// reference for as long as the analysis.
func (e *engine) snapshot(c *vclock) vclock {
	retain(c.root)
	return *c
}

// drop empties c, releasing its tree.
func (a *clockArena) drop(c *vclock, own int32) {
	a.release(c.root, a.shift)
	*c = a.clock(own)
}

// ownLeaf makes *slot a leaf only its parent references (copying a shared one, allocating
// a zero one for nil) and returns it.
func (a *clockArena) ownLeaf(slot *unsafe.Pointer) *leaf {
	p := *slot
	if p == nil {
		l := a.newLeaf()
		l.v = [leafN]uint32{}
		*slot = unsafe.Pointer(l)
		return l
	}
	l := (*leaf)(p)
	if l.refs == 1 {
		return l
	}
	n := a.newLeaf()
	n.v = l.v
	l.refs--
	*slot = unsafe.Pointer(n)
	return n
}

// ownInner is ownLeaf for an inner node.
func (a *clockArena) ownInner(slot *unsafe.Pointer) *inner {
	p := *slot
	if p == nil {
		m := a.newInner()
		*slot = unsafe.Pointer(m)
		return m
	}
	m := (*inner)(p)
	if m.refs == 1 {
		return m
	}
	n := a.newInner()
	n.kids = m.kids
	for _, k := range n.kids {
		retain(k)
	}
	m.refs--
	*slot = unsafe.Pointer(n)
	return n
}

// setTree sets entry k of c's tree to v, copying the path if it is shared.
func (a *clockArena) setTree(c *vclock, k int32, v uint32) {
	c.shift = a.shift
	slot := &c.root
	for s := a.shift; s >= leafBits; s -= fanBits {
		slot = &a.ownInner(slot).kids[(uint32(k)>>uint(s))&(fanN-1)]
	}
	a.ownLeaf(slot).v[k&(leafN-1)] = v
}

// set sets entry k of c to v.
func (a *clockArena) set(c *vclock, k int32, v uint32) {
	if k == c.own {
		c.ownEp = v
		return
	}
	if c.tree(k) != v {
		a.setTree(c, k, v)
	}
}

// raise sets entry k of c to at least v.
func (a *clockArena) raise(c *vclock, k int32, v uint32) {
	if k == c.own {
		c.ownEp = max(c.ownEp, v)
		return
	}
	if c.tree(k) < v {
		a.setTree(c, k, v)
	}
}

// join sets dst to the entrywise maximum of dst and src.
func (a *clockArena) join(dst, src *vclock) {
	if dst == src {
		return
	}
	if a.shift == 0 && dst.root != nil && src.root != nil && dst.root != src.root {
		// the common case of a program with few goroutines, without the calls
		if dl, sl := (*leaf)(dst.root), (*leaf)(src.root); dl.refs == 1 {
			if dst.own >= 0 {
				if dst.own == src.own {
					dst.ownEp = max(dst.ownEp, src.ownEp)
				} else {
					dst.ownEp = max(dst.ownEp, sl.v[dst.own&(leafN-1)])
				}
			}
			join(dl.v[:], sl.v[:])
			if k := src.own; k >= 0 && k != dst.own {
				dl.v[k&(leafN-1)] = max(dl.v[k&(leafN-1)], src.ownEp)
			}
			return
		}
	}
	ownEp := dst.ownEp
	if dst.own >= 0 {
		ownEp = max(ownEp, src.get(dst.own))
	}
	if src.root != nil && src.root != dst.root {
		dst.shift = a.shift
		a.joinTree(&dst.root, src.root, a.shift)
	}
	if src.own >= 0 && src.own != dst.own {
		a.raise(dst, src.own, src.ownEp)
	}
	dst.ownEp = ownEp
}

// joinTree sets the subtree at *slot (of the level with shift s) to its join with src.
func (a *clockArena) joinTree(slot *unsafe.Pointer, src unsafe.Pointer, s int32) {
	if r, _, _ := a.joinNode(*slot, src, s, true); r != *slot {
		a.replace(slot, r, src, s)
	}
}

// joinNode joins subtree src into subtree d (of the level with shift s) in one pass over
// the nodes where they differ, and returns the joined subtree and whether src had an entry
// greater than d's (gt) and d one greater than src's (lt); a node is taken to hold a
// nonzero entry. The result is d, changed in place where excl says that d's whole path is
// this clock's alone; or src (where it holds all of d: clocks that learn from each other
// converge to the same nodes, and their later joins skip them by pointer); or a new node.
// (It used to compare each differing subtree before joining it, at every level: 4 passes
// over a leaf of a 3-level tree, 70% of the analysis of a 60,000-goroutine trace.)
func (a *clockArena) joinNode(d, src unsafe.Pointer, s int32, excl bool) (r unsafe.Pointer, gt, lt bool) {
	switch {
	case d == src:
		return d, false, false
	case src == nil:
		return d, false, true
	case d == nil:
		return src, true, false
	}
	excl = excl && *(*int32)(d) == 1
	if s < leafBits {
		dl, sl := (*leaf)(d), (*leaf)(src)
		if a.shift == 0 { // a one-leaf tree: its goroutine changes it all the time, join in place
			gt, lt = true, true
		} else if gt, lt = compareLeaves(&dl.v, &sl.v); !gt {
			if lt {
				return d, false, true // src adds nothing
			}
			return src, false, false // the same: take src's, so that the two converge
		} else if !lt {
			return src, true, false // src holds all of d
		}
		if !excl {
			n := a.newLeaf()
			n.v = dl.v
			dl = n
		}
		join(dl.v[:], sl.v[:])
		return unsafe.Pointer(dl), gt, lt
	}
	dn, sn := (*inner)(d), (*inner)(src)
	var kids [fanN]unsafe.Pointer // the joined children that differ from d's (nil: d's)
	changed, same := false, true  // same: every joined child is src's
	for i := range fanN {
		dk, sk := dn.kids[i], sn.kids[i]
		if dk == sk {
			continue
		}
		k, g, l := a.joinNode(dk, sk, s-fanBits, excl)
		gt, lt = gt || g, lt || l
		if k != sk {
			same = false
		}
		if k != dk {
			kids[i], changed = k, true
		}
	}
	switch {
	case same: // (no child was changed in place or copied: each is src's)
		return src, gt, lt
	case !changed:
		return d, gt, lt
	}
	if !excl { // a copy of d that the changes go into
		n := a.newInner()
		n.kids = dn.kids
		for _, k := range n.kids {
			retain(k)
		}
		dn = n
	}
	for i, k := range kids {
		if k != nil {
			a.replace(&dn.kids[i], k, sn.kids[i], s-fanBits)
		}
	}
	return unsafe.Pointer(dn), gt, lt
}

// replace puts joinNode's result r in *slot instead of the node there: src (of which the
// slot takes a reference) or a node of its own (new, or the old one changed in place).
func (a *clockArena) replace(slot *unsafe.Pointer, r, src unsafe.Pointer, s int32) {
	if r == src {
		retain(r)
	}
	a.release(*slot, s)
	*slot = r
}

// compareLeaves reports whether s has an entry greater than d's, and one smaller.
func compareLeaves(d, s *[leafN]uint32) (gt, lt bool) {
	// vector instructions where the CPU has them: the comparisons were 60% of the analysis
	// of a trace of 60,000 goroutines (each join of two wide clocks compares the leaves
	// they do not share)
	if gt, lt, ok := compareVector(d, s); ok {
		return gt, lt
	}
	for i := range d {
		x, y := s[i], d[i]
		gt = gt || x > y
		lt = lt || x < y
	}
	return gt, lt
}

// join sets dst to the componentwise maximum of dst and src.
func join(dst, src []uint32) {
	src = src[:len(dst)]
	i := 0
	// vector instructions where the CPU has them (a join of 64 entries was 8% of the
	// analysis); the call does not pay for a few entries
	if n := len(dst) &^ 3; n >= joinVectorMin && joinVector(dst, src, n) {
		i = n
	}
	for ; i+4 <= len(dst); i += 4 {
		d, s := dst[i:i+4:i+4], src[i:i+4:i+4]
		d[0] = max(d[0], s[0])
		d[1] = max(d[1], s[1])
		d[2] = max(d[2], s[2])
		d[3] = max(d[3], s[3])
	}
	for ; i < len(dst); i++ {
		dst[i] = max(dst[i], src[i])
	}
}

// joinVectorMin is the clock length from which join uses vector instructions.
const joinVectorMin = 16

// published is a clock published by one event (an unlock, a send into a buffer): the
// clocks of goroutine vc.own right after its event with epoch vc.ownEp (0: nothing
// published yet). Because clocks are vector clocks, a goroutine that already knows that
// epoch knows everything the clock holds, and the join can be skipped: the common case of a
// goroutine re-acquiring what it released itself, or a producer/consumer pair that is
// already in sync.
type published struct {
	vc, wvc vclock
	weak    bool // wvc is published too
}

func (a *clockArena) publish(p *published, vc, wvc *vclock) {
	a.assign(&p.vc, vc)
	if p.weak {
		a.assign(&p.wvc, wvc)
	}
}

// acquire1 joins p into goroutine g's clocks (the weak one only if p has one).
func (e *engine) acquire1(g int32, p *published) {
	ep := p.vc.ownEp
	if ep == 0 {
		return
	}
	owner := p.vc.own
	if p.weak && p.vc.root == p.wvc.root && e.sameClocks(g) {
		if e.vc[g].get(owner) < ep {
			e.ck.join(&e.vc[g], &p.vc)
			e.ck.assign(&e.wvc[g], &e.vc[g])
		}
		return
	}
	if e.vc[g].get(owner) < ep {
		e.ck.join(&e.vc[g], &p.vc)
	}
	if p.weak && e.wvc[g].get(owner) < ep {
		e.ck.join(&e.wvc[g], &p.wvc)
	}
}

// sameClocks reports whether goroutine g's strong and weak clocks are one tree (it took no
// mutex edge the weak clock lacks, or only ones it also learned otherwise): the same
// change then applies to both, done once and shared. (One-leaf trees are changed in
// place instead.)
func (e *engine) sameClocks(g int32) bool {
	return e.ck.shift != 0 && e.vc[g].root == e.wvc[g].root
}
