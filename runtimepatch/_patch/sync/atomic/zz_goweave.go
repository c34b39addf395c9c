// Copyright goweave authors. Added to package sync/atomic by the goweave overlay.

// goweave hooks of the typed atomic values (type.go). The runtime implements
// them (push linknames from runtime/zz_goweave_atomic.go); they take the
// address only, so the methods calling them stay inlinable.

package atomic

import "unsafe"

//go:noescape
func goweaveAtomicLoad(p unsafe.Pointer)

// goweaveAtomicLoadAgain records a typed value's Load after it read, or
// reports that the schedule held it back and it must read again.
//
//go:noescape
func goweaveAtomicLoadAgain(p unsafe.Pointer) bool

//go:noescape
func goweaveAtomicStore(p unsafe.Pointer)

//go:noescape
func goweaveAtomicRMW(p unsafe.Pointer)
