//go:build linux || darwin

package run

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The sweep: where the kernel does not contain a run (macOS; Linux without PID
// namespaces), every process of this user that still carries the run's marker (envRun,
// inherited through fork and exec, setsid and double forks included) is killed when the
// run ends. Only the listing of processes and the reading of their environments differ
// per system (proctable_*.go).

// sweepMarked kills every process whose environment holds envRun=marker.
func sweepMarked(marker string) {
	sweepProc(func(value string) bool { return value == marker })
}

// sweepOrphaned kills the processes left by runs of goweave processes that have died
// (envRun's value starts with the pid of the goweave that started the run).
func sweepOrphaned() {
	sweepProc(func(value string) bool {
		owner, _, ok := strings.Cut(value, "-")
		pid, err := strconv.Atoi(owner)
		return ok && err == nil && pid != os.Getpid() && syscall.Kill(pid, 0) == syscall.ESRCH
	})
}

// sweepProc SIGKILLs the processes of this user whose envRun value matches. A process in
// the middle of an exec may show no environment for a moment: the sweep looks again until
// no process is in that state (for at most sweepRescans looks), and again after each kill
// (a process it killed may have just forked).
func sweepProc(match func(value string) bool) {
	for range sweepRescans {
		killed, pending := sweepOnce(match)
		if !killed && !pending {
			return
		}
		if !killed {
			time.Sleep(time.Millisecond)
		}
	}
}

// sweepRescans bounds the looks of one sweep.
const sweepRescans = 200

// sweepOnce makes one pass over the processes: whether it killed a process, and whether
// a process had no environment to read yet (in the middle of an exec).
func sweepOnce(match func(value string) bool) (killed, pending bool) {
	self := os.Getpid()
	for _, pid := range processIDs() {
		if pid == self {
			continue
		}
		env, execing := processEnviron(pid)
		if execing {
			pending = true
			continue
		}
		if markedBy(env, match) {
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				killed = true
			}
		}
	}
	return killed, pending
}

// markedBy reports whether an envRun entry of env (NUL-separated KEY=value entries) has a
// value that matches.
func markedBy(env []byte, match func(value string) bool) bool {
	prefix := []byte(envRun + "=")
	for kv := range bytes.SplitSeq(env, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, prefix); ok && match(string(v)) {
			return true
		}
	}
	return false
}
