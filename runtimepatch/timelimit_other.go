//go:build !linux && !darwin

package runtimepatch

// TimeLimitSignal is 0 where goweave has no time-limit signal (it patches no
// toolchain there): the patched runtime does not arm the check for 0.
const TimeLimitSignal = 0
