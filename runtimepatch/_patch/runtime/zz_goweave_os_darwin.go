// Copyright goweave authors. Added to package runtime by the goweave overlay.

// What the recorder needs from macOS that the runtime does not define;
// Linux: zz_goweave_os_linux.go. The darwin runtime calls the C library,
// never the kernel directly: the pid comes from libc's getpid through a
// trampoline of ours (zz_goweave_os_darwin_*.s), as the runtime's own
// libc calls do.

package runtime

import (
	"internal/abi"
	"unsafe"
)

// Flags of open and mmap, as <sys/fcntl.h> and <sys/mman.h> number them on
// macOS (amd64 and arm64 alike).
const (
	goweaveOCloexec  = 0x1000000
	goweaveORdonly   = 0x0
	goweaveORdwr     = 0x2
	goweaveMapShared = 0x1
)

// goweavePid is the process's id, for META pid.
//
//go:nosplit
func goweavePid() uint64 {
	var pid int32
	libcCall(unsafe.Pointer(abi.FuncPCABI0(goweave_getpid_trampoline)), unsafe.Pointer(&pid))
	return uint64(pid)
}
func goweave_getpid_trampoline()

// goweaveHugePages: macOS has no madvise for huge pages; the event buffer
// keeps 4 KiB pages (16 KiB on Apple silicon).
func goweaveHugePages(p uintptr, n uintptr) {}

// goweaveTLWake does nothing: the time-limit thread polls goweaveTL.fired.
// Notes are not async-signal-safe on macOS (notewakeup takes a pthread
// mutex, which the thread the signal interrupted may hold: the runtime
// itself wakes its one signal-handler note through a pipe instead).
//
//go:nosplit
//go:nowritebarrierrec
func goweaveTLWake() {}

// goweaveTLPollNs is how often the time-limit thread looks whether the
// signal came: at most this much is added to the run's time limit.
const goweaveTLPollNs = 10_000_000

// goweaveTLWait sleeps the time-limit thread until the signal came (true)
// or ns passed (false; ns < 0: no limit), looking every goweaveTLPollNs.
//
//go:nowritebarrierrec
func goweaveTLWait(ns int64) bool {
	for slept := int64(0); goweaveTL.fired.Load() == 0; {
		if ns >= 0 && slept >= ns {
			return false
		}
		d := int64(goweaveTLPollNs)
		if ns >= 0 && ns-slept < d {
			d = ns - slept
		}
		usleep(uint32(d / 1000))
		slept += d
	}
	return true
}
