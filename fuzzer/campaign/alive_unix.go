//go:build unix

package campaign

import (
	"errors"
	"syscall"
)

// processAlive reports whether process pid exists (EPERM: it exists, another user's).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
