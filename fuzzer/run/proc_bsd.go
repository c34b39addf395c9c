//go:build unix && !linux

package run

import "syscall"

// processAttr starts the test process in its own process group, so that signalGroup
// reaches what it starts.
func processAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
