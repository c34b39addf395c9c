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

// joinTree sets the subtree at *slot (of the level with shift s) to its join with src,
// copying what it changes of a shared subtree. Where src holds all of a subtree, the
// subtree becomes src's (shared): clocks that learn from each other converge to the same
// nodes, and their later joins skip them by pointer.
func (a *clockArena) joinTree(slot *unsafe.Pointer, src unsafe.Pointer, s int32) {
	d := *slot
	if d == src || src == nil {
		return
	}
	if d == nil {
		retain(src)
		*slot = src
		return
	}
	if s < leafBits {
		dl, sl := (*leaf)(d), (*leaf)(src)
		if a.shift == 0 { // a one-leaf tree: its goroutine changes it all the time, join in place
			if dl.refs == 1 {
				join(dl.v[:], sl.v[:])
			} else {
				join(a.ownLeaf(slot).v[:], sl.v[:])
			}
			return
		}
		gt, lt := compareLeaves(&dl.v, &sl.v)
		switch {
		case !gt: // src adds nothing
		case !lt: // src holds all of d
			retain(src)
			a.release(d, s)
			*slot = src
		default:
			join(a.ownLeaf(slot).v[:], sl.v[:])
		}
		return
	}
	dn, sn := (*inner)(d), (*inner)(src)
	same := true // every child is src's
	for i := range fanN {
		sk, dk := sn.kids[i], dn.kids[i]
		if sk == dk {
			continue
		}
		same = false
		if sk == nil {
			continue
		}
		gt, lt := compareTrees(sk, dk, s-fanBits)
		if !gt && lt { // src adds nothing
			continue
		}
		dn = a.ownInner(slot)
		if lt {
			a.joinTree(&dn.kids[i], sk, s-fanBits)
			continue
		}
		// src holds all of it (or the same: take src's, so that the two converge)
		retain(sk)
		a.release(dk, s-fanBits)
		dn.kids[i] = sk
	}
	if !same {
		same = true
		for i := range fanN {
			same = same && dn.kids[i] == sn.kids[i]
		}
	}
	if same && *slot != src {
		retain(src)
		a.release(*slot, s)
		*slot = src
	}
}

// compareTrees reports whether subtree p (of the level with shift s) has an entry greater
// than the same entry of q, and one smaller (a nil subtree is zero; a node is taken to hold
// a nonzero entry).
func compareTrees(p, q unsafe.Pointer, s int32) (gt, lt bool) {
	switch {
	case p == q:
		return false, false
	case p == nil:
		return false, true
	case q == nil:
		return true, false
	case s < leafBits:
		return compareLeaves(&(*leaf)(q).v, &(*leaf)(p).v)
	}
	pn, qn := (*inner)(p), (*inner)(q)
	for i := range fanN {
		g, l := compareTrees(pn.kids[i], qn.kids[i], s-fanBits)
		gt, lt = gt || g, lt || l
		if gt && lt {
			break
		}
	}
	return gt, lt
}

// compareLeaves reports whether s has an entry greater than d's, and one smaller.
func compareLeaves(d, s *[leafN]uint32) (gt, lt bool) {
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
