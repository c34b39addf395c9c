// Copyright goweave authors. Added to package runtime by the goweave overlay.

// goweave hooks of sync/atomic's functions (runtimepatch/sites_atomicfn.go):
// the Go body the overlay gives each function calls goweaveFnPre, the
// original implementation, then goweaveFnPost, with the return address in
// its caller. A call from the module under test is recorded like a typed
// value's method: an AtomicLoad after it read, an AtomicStore or AtomicRMW
// before it writes, on the address. Without the race detector the compiler
// turns most calls into instructions and only StorePointer, SwapPointer,
// CompareAndSwapPointer and calls through a func value get here.

package runtime

import "unsafe"

//go:linkname goweaveFnPre sync/atomic.goweaveFnPre
func goweaveFnPre(kind uint8, p unsafe.Pointer, pc uintptr) {
	if goweaveOn && kind == goweaveKAtomicLoad && goweaveSchedAtomics {
		goweaveAtomicFnSteer(pc)
	}
	goweaveRaceEnter(pc)
	if goweaveOn && kind != goweaveKAtomicLoad {
		goweaveAtomicFnRec(kind, p, pc)
	}
}

//go:linkname goweaveFnPost sync/atomic.goweaveFnPost
func goweaveFnPost(kind uint8, p unsafe.Pointer, pc uintptr) {
	if goweaveOn && kind == goweaveKAtomicLoad {
		goweaveAtomicFnRec(kind, p, pc)
	}
	goweaveRaceExit()
}

// goweaveAtomicFnRec records the atomic operation on p of a function
// called from return address pc, when that is user code.
func goweaveAtomicFnRec(kind uint8, p unsafe.Pointer, pc uintptr) {
	gp := getg()
	if gp != gp.m.curg {
		return
	}
	pos := goweaveLookupBy(pc, goweaveClassifyAtomicFn)
	if pos >= goweaveFirstClass || pos == 0 {
		return
	}
	if s := &gp.goweave.s; s.reread {
		s.reread = false // a Load steered before it read (goweaveAtomicFnSteer)
		goweaveAtomicRecord(gp, kind, uint64(uintptr(p)), pos, p)
		return
	}
	goweaveAtomicAt(gp, kind, uint64(uintptr(p)), pos, p)
}

// goweaveAtomicFnSteer lets a Load function called from user code wait its
// turn before it reads, when the order pins atomics (a Load held after it
// read would return a stale value); goweaveAtomicFnRec then records it
// without steering it again.
func goweaveAtomicFnSteer(pc uintptr) {
	gp := getg()
	if gp != gp.m.curg {
		return
	}
	pos := goweaveLookupBy(pc, goweaveClassifyAtomicFn)
	if pos >= goweaveFirstClass || pos == 0 {
		return
	}
	goweaveSteer(gp, goweaveKAtomicLoad, pos)
	gp.goweave.s.reread = true
}

// goweaveClassifyAtomicFn classifies the caller of a sync/atomic function:
// user code when the innermost (inlined) frame at pc is, or a dependency's
// helper inlined into user code (goweaveAtomicUserFrame). A typed value's
// method calling the function (inlined into user code or not) is not: the
// method records the operation itself (zz_goweave_atomic.go).
func goweaveClassifyAtomicFn(pc uintptr) uint32 { return goweaveAtomicUserFrame(pc, false) }
