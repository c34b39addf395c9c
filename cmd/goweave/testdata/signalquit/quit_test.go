//go:build unix

// Package signalquit's test sends its own process SIGQUIT: the Go runtime dumps every
// goroutine and exits with status 2. No finding can say what went wrong (it is no failure
// of the test's and no bug goweave detects), yet the run failed: the report must say so.
package signalquit

import (
	"os"
	"syscall"
	"testing"
	"time"
)

func TestQuit(t *testing.T) {
	syscall.Kill(os.Getpid(), syscall.SIGQUIT)
	time.Sleep(10 * time.Second) // the runtime's handler exits the process first
}
