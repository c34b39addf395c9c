package analysis

import (
	"math"
	"math/bits"
)

// userTable finds the entry of a (channel, class, goroutine, position) in the channel's
// user list of that class. One open-addressing table serves every busy channel: the
// per-channel Go maps it replaces cost two or three cache misses per lookup on channels
// with many users, this one. A slot holds the whole key beside the list index, so a
// lookup reads only the table: confirming the match in the list entry instead made the
// caller wait for a second, dependent cache miss, where now the list entry is only
// written (a store, which does not stall).
type userTable struct {
	slots []userSlot
	used  int
	shift uint // 32 - log2(len(slots)): the hash's top bits pick the slot
}

// userSlot is 16 bytes, four to a cache line: a probe never straddles two lines.
type userSlot struct {
	xc   uint32 // channel index x and class, as x*numClasses + class
	g    int32
	pos  uint32
	idx1 int32 // list index + 1; 0: empty slot
}

// maxIndexedChan bounds the channel indices the table serves (xc must fit 32 bits); the
// users of channels beyond it (never in practice: that many channels take billions of
// events) are found by scanning their lists.
const maxIndexedChan = math.MaxUint32/uint32(numClasses) - 1

func userKey(x int32, class uint8) uint32 { return uint32(x)*uint32(numClasses) + uint32(class) }

// userHash leaves the class out, so that site can find the slot of an operation
// before its class is known; the few classes of one site share a probe sequence.
func userHash(x int32, g int32, pos uint32) uint32 {
	h := (uint64(uint32(g))<<32 | uint64(pos)) ^ uint64(uint32(x))*0xC2B2AE3D27D4EB4F
	h *= 0x9E3779B97F4A7C15
	h ^= h >> 32
	h *= 0x9E3779B97F4A7C15
	return uint32(h >> 32)
}

// get returns the index of (g, pos) in the users of channel x in class, or -1.
func (t *userTable) get(x int32, class uint8, g int32, pos uint32) int32 {
	if len(t.slots) == 0 {
		return -1
	}
	mask := uint32(len(t.slots) - 1)
	xc := userKey(x, class)
	for k := userHash(x, g, pos) >> t.shift; ; k = (k + 1) & mask {
		s := &t.slots[k]
		if s.idx1 == 0 {
			return -1
		}
		if s.g == g && s.pos == pos && s.xc == xc {
			return s.idx1 - 1
		}
	}
}

// site returns the slot where the lookup of (channel x, goroutine g, position pos) in
// any class begins (the table must not be empty), for prefetching: the cache miss then
// overlaps the events analyzed before.
func (t *userTable) site(x int32, g int32, pos uint32) *userSlot {
	return &t.slots[userHash(x, g, pos)>>t.shift]
}

// put records that (g, pos) is at index j of the users of channel x in class; the key
// must be new.
func (t *userTable) put(x int32, class uint8, g int32, pos uint32, j int32) {
	if 4*(t.used+1) > 3*len(t.slots) { // load at most 3/4: probes stay within a cache line or two
		t.grow()
	}
	t.insert(userSlot{xc: userKey(x, class), g: g, pos: pos, idx1: j + 1})
	t.used++
}

func (t *userTable) insert(s userSlot) {
	mask := uint32(len(t.slots) - 1)
	k := userHash(int32(s.xc/uint32(numClasses)), s.g, s.pos) >> t.shift
	for t.slots[k].idx1 != 0 {
		k = (k + 1) & mask
	}
	t.slots[k] = s
}

func (t *userTable) grow() {
	old := t.slots
	n := max(2*len(old), 1024)
	t.slots = make([]userSlot, n)
	t.shift = uint(32 - bits.TrailingZeros(uint(n)))
	for _, s := range old {
		if s.idx1 != 0 {
			t.insert(s)
		}
	}
}
