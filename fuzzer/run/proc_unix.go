//go:build unix

package run

import (
	"syscall"

	"github.com/goweave/goweave/runtimepatch"
)

// signalGroup sends the test process and everything it started (its process group) either
// SIGQUIT, which the goweave runtime catches to flush its trace, or SIGKILL.
func signalGroup(pgid int, quit bool) {
	sig := syscall.SIGKILL
	if quit {
		sig = syscall.SIGQUIT
	}
	syscall.Kill(-pgid, sig)
}

// askLeakCheck sends the test process (not its group: another program might die of the
// signal) the patched runtime's time-limit signal: it runs the GC's goroutine leak
// detection and then ends itself with SIGQUIT, so that its trace says which goroutines
// were blocked for good (runtimepatch.EnvTimeLimit).
func askLeakCheck(pid int) bool {
	return runtimepatch.TimeLimitSignal != 0 && syscall.Kill(pid, syscall.Signal(runtimepatch.TimeLimitSignal)) == nil
}
