// Copyright goweave authors. Added to package runtime by the goweave overlay.

// goweave sync.Map hooks. sync.Map's documentation states its
// synchronisation in the Go memory model's terms: a write operation
// synchronizes before any read operation that observes its effect, both
// about one key. goweave records it with the atomic events (50-52) on one
// address per map and key (docs/stdlib-hb.md, runtimepatch/sites_syncmap.go):
// a read (Load, Range's visit of a key) is an AtomicLoad recorded after it
// read; a write (Store, Delete) an AtomicStore recorded before it wrote; an
// operation that may do both (LoadOrStore, LoadAndDelete, Swap,
// CompareAndSwap, CompareAndDelete) an AtomicStore before and an AtomicLoad
// after, so whatever it observed and whoever observes it are ordered by
// the stamps alone. Only calls from the module under test are recorded, as
// for sync/atomic: a library's sync.Map is its implementation detail.

package runtime

import "unsafe"

// goweaveMapBit marks the addresses of map entries: no real address has
// it (user space is below 1<<48 on linux/amd64 and arm64), so an entry
// never shares its synchronisation with an atomic variable.
const goweaveMapBit = 1 << 63

//go:linkname goweaveMapOp sync.goweaveMapOp
func goweaveMapOp(kind uint8, m unsafe.Pointer, key any, pc uintptr) {
	if !goweaveOn {
		return
	}
	gp := getg()
	if gp != gp.m.curg {
		return
	}
	pos := goweaveLookup(pc)
	if pos == goweaveWrapper {
		pos = goweaveBeyondWrapper()
	}
	if pos >= goweaveFirstClass || pos == 0 {
		return
	}
	goweaveAtomicAt(gp, kind, goweaveMapEntry(m, key), pos, nil)
}

// goweaveMapEntry is the address the operations on key in map m are
// recorded on: the key's hash seeded with the map's address. Two keys (or
// maps) whose hashes collide share it, which orders more than the program
// did (it can hide a prediction, never invent one). sync.Map hashes its
// keys with the same function: an unhashable key panics here with the
// runtime error sync.Map would have raised.
func goweaveMapEntry(m unsafe.Pointer, key any) uint64 {
	return uint64(nilinterhash(noescape(unsafe.Pointer(&key)), uintptr(m))) | goweaveMapBit
}
