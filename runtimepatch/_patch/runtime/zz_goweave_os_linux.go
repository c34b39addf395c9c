// Copyright goweave authors. Added to package runtime by the goweave overlay.

// What the recorder needs from the operating system that the runtime names
// differently per system; darwin: zz_goweave_os_darwin.go.

package runtime

import "unsafe"

// Flags of open and mmap, as Linux numbers them on every architecture.
const (
	goweaveOCloexec  = _O_CLOEXEC
	goweaveORdonly   = _O_RDONLY
	goweaveORdwr     = 0x2
	goweaveMapShared = 0x1
)

// goweavePid is the process's id, for META pid.
//
//go:nosplit
func goweavePid() uint64 { return uint64(getpid()) }

// goweaveHugePages asks for 2 MiB pages behind the event buffer: one fault
// per 2 MiB instead of per 4 KiB, and first touches of the buffer are a large
// part of the cost of an event.
func goweaveHugePages(p uintptr, n uintptr) {
	madvise(unsafe.Pointer(p), n, _MADV_HUGEPAGE)
}

// goweaveTLWake wakes the time-limit thread from the signal handler: a
// futex wake, which is async-signal-safe.
//
//go:nosplit
//go:nowritebarrierrec
func goweaveTLWake() { notewakeup(&goweaveTL.wake) }

// goweaveTLWait sleeps the time-limit thread until the signal came (true)
// or ns passed (false; ns < 0: no limit).
//
//go:nowritebarrierrec
func goweaveTLWait(ns int64) bool {
	if ns < 0 {
		notesleep(&goweaveTL.wake)
		return true
	}
	return notetsleep(&goweaveTL.wake, ns)
}
