package run

import (
	"os"
	"syscall"
)

// Windows has no process groups or SIGQUIT: a test process at its time limit is killed
// outright (its trace is not flushed), and processes it started are not.

// Containment says how the processes a test starts are contained: not at all here.
func Containment() string { return "none" }

func processAttr() *syscall.SysProcAttr { return nil }

func namespaceRefused(*syscall.SysProcAttr, error) bool { return false }

func sweep(string) {}

func sweepOrphans() {}

func signalGroup(pid int, quit bool) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

// askLeakCheck: Windows has no such signal; the time limit ends the process at once.
func askLeakCheck(pid int) bool { return false }
