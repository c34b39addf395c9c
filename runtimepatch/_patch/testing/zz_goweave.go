// Copyright goweave authors. Added to package testing by the goweave overlay.

// goweave hooks of package testing: the uses of a test's T that panic once
// the test has completed, and the test's end (where tRunner marks it done).
// The runtime implements the bodyless functions (push linknames from
// runtime/zz_goweave_testing.go).

package testing

import "unsafe"

// The method of a TestUse (its record's a field; analysis/trace FORMAT.md).
const (
	goweaveTLog = 1 + iota
	goweaveTLogf
	goweaveTError
	goweaveTErrorf
	goweaveTFatal
	goweaveTFatalf
	goweaveTSkip
	goweaveTSkipf
	goweaveTSkipNow
	goweaveTFail
	goweaveTFailNow
)

//go:noescape
func goweaveTestUse(id *uint64, method uint8, pc uintptr)

//go:noescape
func goweaveTestEnd(id *uint64, fnPC uintptr)

// goweaveEnd records the end of the test whose function is fn; the entry of
// fn names the test's position.
func goweaveEnd(id *uint64, fn func(*T)) {
	var pc uintptr
	if fn != nil {
		pc = **(**uintptr)(unsafe.Pointer(&fn))
	}
	goweaveTestEnd(id, pc)
}
