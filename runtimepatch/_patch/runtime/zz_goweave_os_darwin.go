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
