package run

import "syscall"

// processAttr starts the test process in its own process group, so that signalGroup
// reaches what it starts, and has the kernel kill it should goweave itself die.
func processAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
