// Copyright goweave authors. Added to package runtime by the goweave overlay.

// goweave atomic hooks: the methods of sync/atomic's typed values (Bool,
// Int32, Int64, Uint32, Uint64, Uintptr, Pointer, Value) called from the
// module under test are release (Store), acquire (Load) or both (Swap,
// CompareAndSwap, Add, And, Or) on their address (docs/stdlib-hb.md). A
// Load is stamped after it read and the others before they write, so a Load
// that observed a value is stamped after the write of that value. Atomics
// inside libraries are their implementation details and are not recorded,
// except a dependency's helper inlined into the module's code (an atomic
// wrapper type's method: goweaveAtomicUserFrame).

package runtime

import (
	"internal/runtime/sys"
	"unsafe"
)

// Event kinds (FORMAT.md).
const (
	goweaveKAtomicLoad  = 50
	goweaveKAtomicStore = 51
	goweaveKAtomicRMW   = 52
)

//go:linkname goweaveAtomicLoad sync/atomic.goweaveAtomicLoad
func goweaveAtomicLoad(p unsafe.Pointer) {
	if goweaveOn {
		goweaveAtomicRec(goweaveKAtomicLoad, p, sys.GetCallerPC())
	}
}

//go:linkname goweaveAtomicStore sync/atomic.goweaveAtomicStore
func goweaveAtomicStore(p unsafe.Pointer) {
	if goweaveOn {
		goweaveAtomicRec(goweaveKAtomicStore, p, sys.GetCallerPC())
	}
}

//go:linkname goweaveAtomicRMW sync/atomic.goweaveAtomicRMW
func goweaveAtomicRMW(p unsafe.Pointer) {
	if goweaveOn {
		goweaveAtomicRec(goweaveKAtomicRMW, p, sys.GetCallerPC())
	}
}

//go:linkname goweaveAtomicLoadAgain sync/atomic.goweaveAtomicLoadAgain
func goweaveAtomicLoadAgain(p unsafe.Pointer) bool {
	if goweaveOn {
		return goweaveAtomicLoadRec(p, sys.GetCallerPC())
	}
	return false
}

// goweaveAtomicRec records an atomic operation on p whose hook returns to
// pc, when the method was called from user code: a = the address.
func goweaveAtomicRec(kind uint8, p unsafe.Pointer, pc uintptr) {
	gp := getg()
	if gp != gp.m.curg {
		return
	}
	if pos := goweaveAtomicPos(pc); pos != 0 {
		goweaveAtomicAt(gp, kind, uint64(uintptr(p)), pos, p)
	}
}

// goweaveAtomicPos is the user position of the typed value's method whose
// hook returns to pc, 0 when it was not called from user code.
func goweaveAtomicPos(pc uintptr) uint32 {
	pos := goweaveLookupBy(pc, goweaveClassifyAtomic)
	if pos == goweaveWrapper {
		pos = goweaveAtomicCaller(pc)
	}
	if pos >= goweaveFirstClass {
		return 0
	}
	return pos
}

// goweaveAtomicLoadRec is the hook of a typed value's Load, after it read
// (type.go: `v := load; for goweaveAtomicLoadAgain(p) { v = load }`). It
// records the Load and returns false; but when the schedule held the Load
// back (an order that pins atomics: it waited for its turn) it records
// nothing and returns true: the value read before the wait is stale, so the
// method reads again, as a goroutine that was slow to reach the Load would
// have, and calls it once more, which records.
func goweaveAtomicLoadRec(p unsafe.Pointer, pc uintptr) bool {
	gp := getg()
	if gp != gp.m.curg {
		return false
	}
	pos := goweaveAtomicPos(pc)
	if pos == 0 {
		return false
	}
	s := &gp.goweave.s
	switch {
	case s.reread:
		s.reread = false // steered already
	case goweaveSchedOn && goweaveSteer(gp, goweaveKAtomicLoad, pos):
		s.reread = true
		return true
	}
	goweaveAtomicRecord(gp, goweaveKAtomicLoad, uint64(uintptr(p)), pos, p)
	return false
}

// goweaveAtomicAt records an atomic operation of gp on address a at the
// user position pos; word, when not nil, is the value's memory.
func goweaveAtomicAt(gp *g, kind uint8, a uint64, pos uint32, word unsafe.Pointer) {
	goweaveBefore(gp, kind, pos)
	goweaveAtomicRecord(gp, kind, a, pos, word)
}

// goweaveAtomicRecord writes the record of an atomic operation that passed
// its pre hook: b is the word at word (flag ValueUsed), when given: the value
// a Load read (it is recorded after the read) or the value a Store or a
// read-modify-write replaces (recorded before the write). The analysis finds
// a lost update with it (a Store that restores a value its goroutine saw
// before another goroutine's write).
func goweaveAtomicRecord(gp *g, kind uint8, a uint64, pos uint32, word unsafe.Pointer) {
	h := goweaveOpen(gp, kind, 0, pos, 0)
	if h == 0 {
		return
	}
	e := goweaveRec(h)
	e.a = a
	e.post = e.pre
	if word != nil {
		e.b = goweaveAtomicWord(word)
		e.flags |= goweaveFValueUsed
	}
}

// goweaveAtomicWord reads the word of an atomic value at p: 8 bytes when p is
// 8-aligned (a 4-byte value there is read with its neighbour: the analysis
// only compares words, and an 8-aligned word never crosses a page), else 4.
// A plain read: the runtime is not instrumented by the race detector, and the
// value is a hint (another goroutine may write it between the operation and
// this read).
func goweaveAtomicWord(p unsafe.Pointer) uint64 {
	if uintptr(p)&7 == 0 {
		return *(*uint64)(p)
	}
	return uint64(*(*uint32)(p))
}

// goweaveClassifyAtomic classifies the return address of an atomic hook: the
// frame that called the sync/atomic method, found in the inline tree when
// the method was inlined into its caller (the usual case); goweaveWrapper
// (look further up the stack) when it was not.
func goweaveClassifyAtomic(pc uintptr) uint32 { return goweaveAtomicUserFrame(pc, true) }

// goweaveAtomicUserFrame is the user position of the atomic operation whose
// hook returns to pc, from the inline tree at pc: the innermost frame of the
// module under test. Frames of sync/atomic (typed: a typed value's method,
// inlined) are skipped; so are frames of a dependency: its small helper (a
// go.uber.org/atomic Bool's Load over a Uint32's over atomic.LoadUint32),
// inlined into the module's function, works on the module's own word, whose
// order the module relies on (a flag guarding a Wait), so it is recorded at
// the module's line. A standard-library frame first (a sync.Mutex's own
// CAS) is not the module's, nor is a dependency's function that was not
// inlined into the module (its inline tree ends in the dependency): that is
// the dependency's implementation, as before. goweaveWrapper when every frame
// is sync/atomic's (typed: the method itself was not inlined).
func goweaveAtomicUserFrame(pc uintptr, typed bool) uint32 {
	f := findfunc(pc)
	if !f.valid() {
		return goweaveNotUser
	}
	dep := false
	u, uf := newInlineUnwinder(f, pc-1)
	for ; uf.valid(); uf = u.next(uf) {
		file, line := u.fileLine(uf)
		if typed && !dep && goweaveInAtomic(file) {
			continue
		}
		if goweaveIsUserFile(file) {
			return goweaveNewPos(file, u.srcFunc(uf).name(), line)
		}
		if _, std := goweaveStdPath(file); std {
			return goweaveNotUser
		}
		dep = true
	}
	if typed && !dep {
		return goweaveWrapper
	}
	return goweaveNotUser
}

// goweaveAtomicCaller classifies the caller of a sync/atomic method that was
// not inlined (called through an interface, or built with -l): the stack
// frame right above the method's, whose hook returns to pc (the module's, or
// a dependency's helper inlined into it: goweaveAtomicUserFrame). Not cached:
// the caller varies.
func goweaveAtomicCaller(pc uintptr) uint32 {
	var pcs [8]uintptr
	n := callers(1, pcs[:])
	for i := 0; i+1 < n; i++ {
		if pcs[i] == pc {
			if v := goweaveLookupBy(pcs[i+1], goweaveClassifyAtomicFn); v < goweaveFirstClass {
				return v
			}
			return goweaveNotUser
		}
	}
	return goweaveNotUser
}

// goweaveInAtomic reports whether file is one of package sync/atomic's.
func goweaveInAtomic(file string) bool {
	std, ok := goweaveStdPath(file)
	return ok && goweaveHasPrefix(std, "sync/atomic/")
}
