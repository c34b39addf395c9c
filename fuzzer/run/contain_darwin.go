package run

import "syscall"

// Containment on macOS, which has no PID namespaces and no parent-death signal: each test
// process leads its own process group, which the time limit signals whole (proc_unix.go),
// and when the run ends every process of this user that still carries the run's marker
// (envRun, inherited through fork and exec, setsid'd daemons included) is killed (sweep.go,
// the sweep Linux uses without namespaces). Processes left by a goweave that was killed
// are swept at the next goweave's first run. A process that clears its environment
// before it leaves the group escapes. Compiled in CI for darwin/arm64 and darwin/amd64
// (.ci/cross.sh); never run there.

// Containment says how the processes a test starts are contained (README: Containment).
func Containment() string { return "process-group+sweep" }

// processAttr starts the test process in its own process group, so that signalGroup
// reaches what it starts.
func processAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

func namespaceRefused(*syscall.SysProcAttr, error) bool { return false }

// sweep kills every process whose environment holds envRun=marker.
func sweep(marker string) { sweepMarked(marker) }

// sweepOrphans kills the processes left by runs of goweave processes that have died.
func sweepOrphans() { sweepOrphaned() }
