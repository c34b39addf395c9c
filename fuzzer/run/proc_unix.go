//go:build unix

package run

import "syscall"

// signalGroup sends the test process and everything it started (its process group) either
// SIGQUIT, which the goweave runtime catches to flush its trace, or SIGKILL.
func signalGroup(pgid int, quit bool) {
	sig := syscall.SIGKILL
	if quit {
		sig = syscall.SIGQUIT
	}
	syscall.Kill(-pgid, sig)
}
