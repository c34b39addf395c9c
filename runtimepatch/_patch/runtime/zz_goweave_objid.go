// Copyright goweave authors. Added to package runtime by the goweave overlay.

// Object ids of sync objects (Mutex, RWMutex, Once, WaitGroup, Cond), kept
// outside the objects so every sync type keeps the stock toolchain's size and
// layout: code that pads by unsafe.Sizeof of a struct holding one compiles
// under goweave as without it.
//
// Where an object lives decides where its id is kept:
//   - on the current goroutine's stack: in that goroutine's small table
//     (goweaveG.stk). Escape analysis keeps a stack object private to its
//     goroutine; copystack moves its entries with the stack
//     (goweaveStackMoved), goroutine start clears them (goweaveSpawn).
//   - anywhere else (heap, globals, off-heap memory): in one open-addressing
//     table keyed by address, read without a lock. A heap object does not
//     move. At the end of each GC's mark phase, world stopped, the entries of
//     heap objects the GC found dead are dropped (goweaveIDsSweep), so an
//     address the sweeper frees and the allocator hands out again gives the
//     new object a new id, as the runtime drops specials of swept objects
//     and the race detector drops the sync objects of freed memory.
//
// The table's memory is mmap'd outside the Go heap and holds addresses as
// integers: it keeps no object alive and the GC never scans it.

package runtime

import (
	"internal/runtime/atomic"
	"unsafe"
)

// goweaveIDSlot is one entry of the table: key is the object's address (0 =
// empty), id its object id. An entry is published by storing key after id.
type goweaveIDSlot struct {
	key uintptr
	id  uint64
}

const (
	goweaveIDMinSlots = 1 << 12 // 64 KiB
	goweaveIDSlotSize = unsafe.Sizeof(goweaveIDSlot{})
	goweaveStkIDs     = 8 // stack-resident sync objects one goroutine keeps ids for
)

// goweaveIDTab is a table's header, at the start of its mapping; the slots
// follow it.
type goweaveIDTab struct {
	mask uintptr // slots - 1, a power of two minus one
	_    uintptr
}

var goweaveIDs struct {
	tab     atomic.Uintptr // *goweaveIDTab of the current table, 0 before the first id
	mu      mutex          // serializes insertions and growth
	n       uintptr        // entries in tab, under mu (or world stopped)
	retired [48]uintptr    // tables replaced by growth, unmapped at the next GC (world stopped)
	swept   uint64         // entries dropped by goweaveIDsSweep so far, for tests
}

// goweaveStkID is an entry of a goroutine's table of its stack objects.
type goweaveStkID struct {
	key uintptr
	id  uint64
}

func goweaveIDSlots(t uintptr) uintptr { return t + unsafe.Sizeof(goweaveIDTab{}) }

func goweaveIDHash(p uintptr) uintptr {
	return uintptr((uint64(p) >> 3) * 0x9e3779b97f4a7c15 >> 20)
}

// goweaveSyncID returns the object id of the sync object at p, assigning the
// next one if it has none. gp is the calling goroutine. p == nil: 0.
func goweaveSyncID(gp *g, p unsafe.Pointer) uint64 {
	a := uintptr(p)
	if a == 0 {
		return 0
	}
	if gp.stack.lo <= a && a < gp.stack.hi {
		return goweaveStackID(gp, a, true)
	}
	if id := goweaveIDFind(a); id != 0 {
		return id
	}
	return goweaveIDInsert(a)
}

// goweaveSyncIDPeek is goweaveSyncID without assigning: 0 when the object
// at p has no id yet.
func goweaveSyncIDPeek(gp *g, p unsafe.Pointer) uint64 {
	a := uintptr(p)
	if a == 0 {
		return 0
	}
	if gp.stack.lo <= a && a < gp.stack.hi {
		return goweaveStackID(gp, a, false)
	}
	return goweaveIDFind(a)
}

// goweaveIDFind looks a up in the current table without a lock. It calls
// nothing, so it holds no safe point: a stop-the-world never finds a
// goroutine inside it, and goweaveIDsSweep may unmap replaced tables.
func goweaveIDFind(a uintptr) uint64 {
	t := goweaveIDs.tab.Load()
	if t == 0 {
		return 0
	}
	mask := (*goweaveIDTab)(unsafe.Pointer(t)).mask
	slots := goweaveIDSlots(t)
	for i := goweaveIDHash(a) & mask; ; i = (i + 1) & mask {
		s := (*goweaveIDSlot)(unsafe.Pointer(slots + i*goweaveIDSlotSize))
		k := atomic.Loaduintptr(&s.key)
		if k == a {
			return atomic.Load64(&s.id)
		}
		if k == 0 {
			return 0
		}
	}
}

// goweaveIDInsert gives the object at a the next id, unless another
// goroutine just did.
func goweaveIDInsert(a uintptr) uint64 {
	lock(&goweaveIDs.mu)
	if id := goweaveIDFind(a); id != 0 {
		unlock(&goweaveIDs.mu)
		return id
	}
	t := goweaveIDs.tab.Load()
	if t == 0 || (goweaveIDs.n+1)*2 > (*goweaveIDTab)(unsafe.Pointer(t)).mask+1 {
		n := uintptr(goweaveIDMinSlots)
		if t != 0 {
			n = 2 * ((*goweaveIDTab)(unsafe.Pointer(t)).mask + 1)
		}
		nt := goweaveIDNew(n)
		if nt == 0 {
			unlock(&goweaveIDs.mu)
			return 0 // out of memory: the operation is recorded without an object
		}
		if t != 0 {
			goweaveIDCopy(t, nt)
			goweaveIDRetire(t)
		}
		goweaveIDs.tab.Store(nt)
		t = nt
	}
	id := goweaveObjects.Add(1)
	goweaveIDPut(t, a, id)
	goweaveIDs.n++
	unlock(&goweaveIDs.mu)
	return id
}

// goweaveIDNew maps an empty table of n slots.
func goweaveIDNew(n uintptr) uintptr {
	t := goweaveMap(unsafe.Sizeof(goweaveIDTab{}) + n*goweaveIDSlotSize)
	if t != 0 {
		(*goweaveIDTab)(unsafe.Pointer(t)).mask = n - 1
	}
	return t
}

func goweaveIDFree(t uintptr) {
	n := (*goweaveIDTab)(unsafe.Pointer(t)).mask + 1
	munmap(unsafe.Pointer(t), unsafe.Sizeof(goweaveIDTab{})+n*goweaveIDSlotSize)
}

// goweaveIDPut stores a new entry in table t, which has room.
func goweaveIDPut(t, a uintptr, id uint64) {
	mask := (*goweaveIDTab)(unsafe.Pointer(t)).mask
	slots := goweaveIDSlots(t)
	for i := goweaveIDHash(a) & mask; ; i = (i + 1) & mask {
		s := (*goweaveIDSlot)(unsafe.Pointer(slots + i*goweaveIDSlotSize))
		if s.key == 0 {
			atomic.Store64(&s.id, id)
			atomic.Storeuintptr(&s.key, a)
			return
		}
	}
}

// goweaveIDCopy puts every entry of from into to.
func goweaveIDCopy(from, to uintptr) {
	n := (*goweaveIDTab)(unsafe.Pointer(from)).mask + 1
	slots := goweaveIDSlots(from)
	for i := uintptr(0); i < n; i++ {
		s := (*goweaveIDSlot)(unsafe.Pointer(slots + i*goweaveIDSlotSize))
		if s.key != 0 {
			goweaveIDPut(to, s.key, s.id)
		}
	}
}

// goweaveIDRetire keeps t to unmap at the next GC: a goroutine may be
// reading it now.
func goweaveIDRetire(t uintptr) {
	for i := range goweaveIDs.retired {
		if goweaveIDs.retired[i] == 0 {
			goweaveIDs.retired[i] = t
			return
		}
	}
	// Full (48 growths between two GCs cannot happen short of an address
	// space that large): keep it mapped.
}

// goweaveIDsSweep drops the entries of heap objects this GC found
// unreachable: the sweep that follows frees them, and their addresses may
// then hold new objects. Called from gcMarkTermination, world stopped, mark
// bits final, before any span of this cycle is swept.
//
//go:nowritebarrierrec
func goweaveIDsSweep() {
	for i, t := range goweaveIDs.retired {
		if t != 0 {
			goweaveIDFree(t)
			goweaveIDs.retired[i] = 0
		}
	}
	t := goweaveIDs.tab.Load()
	if t == 0 || goweaveIDs.n == 0 {
		return
	}
	n := (*goweaveIDTab)(unsafe.Pointer(t)).mask + 1
	slots := goweaveIDSlots(t)
	dead := uintptr(0)
	for i := uintptr(0); i < n; i++ {
		s := (*goweaveIDSlot)(unsafe.Pointer(slots + i*goweaveIDSlotSize))
		if s.key != 0 && goweaveIDDead(s.key) {
			s.id = 0 // marks the entry for the rebuild below
			dead++
		}
	}
	if dead == 0 {
		return
	}
	// Rebuild rather than delete in place: open addressing cannot just
	// clear a slot. Size the new table for the live entries, shrinking it
	// after a burst of short-lived objects.
	live := goweaveIDs.n - dead
	size := uintptr(goweaveIDMinSlots)
	for size < 4*live {
		size *= 2
	}
	nt := goweaveIDNew(size)
	if nt == 0 {
		// No memory for a new table, and clearing a slot in place would
		// break probe chains: keep the dead entries but give each a fresh
		// id, so an object allocated at the address later still gets an
		// id of its own. They are dropped at a later GC.
		for i := uintptr(0); i < n; i++ {
			s := (*goweaveIDSlot)(unsafe.Pointer(slots + i*goweaveIDSlotSize))
			if s.key != 0 && s.id == 0 {
				s.id = goweaveObjects.Add(1)
			}
		}
		return
	}
	for i := uintptr(0); i < n; i++ {
		s := (*goweaveIDSlot)(unsafe.Pointer(slots + i*goweaveIDSlotSize))
		if s.key != 0 && s.id != 0 {
			goweaveIDPut(nt, s.key, s.id)
		}
	}
	goweaveIDs.tab.Store(nt)
	goweaveIDs.n = live
	goweaveIDs.swept += uint64(dead)
	goweaveIDFree(t) // world stopped: no goroutine is inside goweaveIDFind
}

// goweaveIDDead reports whether a is inside a heap object the GC did not
// mark this cycle. Addresses outside the heap (globals, memory the program
// mapped itself) are never dead: their objects live as long as the process.
//
//go:nowritebarrierrec
func goweaveIDDead(a uintptr) bool {
	s := spanOfHeap(a)
	if s == nil {
		return false
	}
	if s.isUserArenaChunk {
		return false // freed explicitly, not by the GC
	}
	return !s.markBitsForIndex(s.objIndex(a)).isMarked()
}

// goweaveStackID returns the id of the sync object at a on gp's own stack,
// assigning one when add. The table is gp's alone: only gp runs on its stack.
// When it is full, the oldest entry makes room; that object gets a new id
// at its next operation.
func goweaveStackID(gp *g, a uintptr, add bool) uint64 {
	t := &gp.goweave.stk
	for i := range t {
		if t[i].key == a {
			return t[i].id
		}
	}
	if !add {
		return 0
	}
	id := goweaveObjects.Add(1)
	t[gp.goweave.stkNext%goweaveStkIDs] = goweaveStkID{a, id}
	gp.goweave.stkNext++
	return id
}

// goweaveStackMoved moves gp's stack objects' entries with its stack
// (copystack: old is the stack being left, the new one is delta higher), so
// an object keeps its id when the stack grows or shrinks.
//
//go:nowritebarrierrec
func goweaveStackMoved(gp *g, old stack, delta uintptr) {
	t := &gp.goweave.stk
	for i := range t {
		if old.lo <= t[i].key && t[i].key < old.hi {
			t[i].key += delta
		}
	}
}

// goweaveIDStats returns the entries of the address table and how many the
// GC dropped so far; runtimepatch's tests read it by linkname.
//
//go:linkname goweaveIDStats
func goweaveIDStats() (live, swept uint64) {
	lock(&goweaveIDs.mu)
	live, swept = uint64(goweaveIDs.n), goweaveIDs.swept
	unlock(&goweaveIDs.mu)
	return
}
