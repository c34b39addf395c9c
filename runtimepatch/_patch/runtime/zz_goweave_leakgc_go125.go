// Copyright goweave authors. Added to package runtime by the goweave overlay.

//go:build !go1.26

// Go 1.25 has no GC goroutine leak detection and no _Gleaked/_Gdeadextra
// states: the trace never says "leakgc", and the analysis judges leaks from
// the trace alone. Go 1.26 and later: zz_goweave_leakgc.go.

package runtime

// goweaveHasLeakGC: no leak detection, no partial stuck check (zz_goweave_stuck.go).
const goweaveHasLeakGC = false

// Goroutine states that do not exist before Go 1.26: no status equals them.
const (
	goweaveGleaked    = 0xffff
	goweaveGdeadextra = 0xfffe
)

// goweaveLeakGC reports that no leak detection ran.
func goweaveLeakGC() bool { return false }
