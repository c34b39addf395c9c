//go:build unix && !linux && !darwin

package run

import "syscall"

// Containment says how the processes a test starts are contained (README: Containment):
// here by its process group only; a process that leaves the group (setsid) escapes.
func Containment() string { return "process-group" }

// processAttr starts the test process in its own process group, so that signalGroup
// reaches what it starts.
func processAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

func namespaceRefused(*syscall.SysProcAttr, error) bool { return false }

func sweep(string) {}

func sweepOrphans() {}
