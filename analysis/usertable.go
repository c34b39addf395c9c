package analysis

import "math/bits"

// userTable finds the entry of a (channel, class, goroutine, position) in the channel's
// user list of that class. One open-addressing table serves every busy channel: the
// per-channel Go maps it replaces cost two or three cache misses per lookup on channels
// with many users, this about one. A slot holds only a 32-bit hash of the key and the list
// index; the list entry itself confirms the match (it has to be written anyway), so the
// table stays small enough for the caches.
type userTable struct {
	slots []userSlot
	used  int
	shift uint // 32 - log2(len(slots)): the hash's top bits pick the slot
}

type userSlot struct {
	hash uint32
	idx1 int32 // list index + 1; 0: empty slot
}

func userHash(x int32, class uint8, g int32, pos uint32) uint32 {
	h := (uint64(uint32(g))<<32 | uint64(pos)) ^ (uint64(uint32(x))<<3|uint64(class))*0xC2B2AE3D27D4EB4F
	h *= 0x9E3779B97F4A7C15
	h ^= h >> 32
	h *= 0x9E3779B97F4A7C15
	return uint32(h >> 32)
}

// get returns the index of (g, pos) in list, the users of channel x in class, or -1.
func (t *userTable) get(x int32, class uint8, g int32, pos uint32, list []chanUser) int32 {
	if len(t.slots) == 0 {
		return -1
	}
	h := userHash(x, class, g, pos)
	mask := uint32(len(t.slots) - 1)
	for k := h >> t.shift; ; k = (k + 1) & mask {
		s := t.slots[k]
		if s.idx1 == 0 {
			return -1
		}
		if s.hash == h {
			// another list's entry can share the hash: its index may fall outside this list
			// or name another (goroutine, position)
			if j := s.idx1 - 1; int(j) < len(list) && list[j].g == g && list[j].pos == pos {
				return j
			}
		}
	}
}

// put records that (g, pos) is at index j of the users of channel x in class; the key
// must be new.
func (t *userTable) put(x int32, class uint8, g int32, pos uint32, j int32) {
	if 4*(t.used+1) > 3*len(t.slots) { // load at most 3/4: probes stay within a cache line or two
		t.grow()
	}
	t.insert(userSlot{hash: userHash(x, class, g, pos), idx1: j + 1})
	t.used++
}

func (t *userTable) insert(s userSlot) {
	mask := uint32(len(t.slots) - 1)
	k := s.hash >> t.shift
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
