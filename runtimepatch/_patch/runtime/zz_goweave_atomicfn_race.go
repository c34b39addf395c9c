// Copyright goweave authors. Added to package runtime by the goweave overlay.

//go:build race

package runtime

// goweaveRaceEnter enters a race-detector frame for the caller of a
// sync/atomic function, whose access the detector attributes to the
// function's Go body (zz_goweave_atomicfn.go): a race report on it then
// shows the caller's line, as it did when the caller called the assembly.
func goweaveRaceEnter(pc uintptr) { racefuncenter(pc) }

func goweaveRaceExit() { racefuncexit() }
