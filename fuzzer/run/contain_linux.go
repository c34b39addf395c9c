package run

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Containment of what a test starts. Each test process is the init of its own PID
// namespace (through an unprivileged user namespace unless goweave runs as root): when it
// ends, however it ends, the kernel kills everything else in the namespace, setsid'd and
// double-forked daemons included; and it has the parent-death signal, so a goweave that
// is killed (SIGKILL included) takes it, and so the whole namespace, along.
//
// Where namespaces are not permitted (user namespaces disabled, seccomp), the test runs in
// its own process group only, and every process that still carries the run's marker
// (envRun, inherited through fork and exec) is killed when the run ends: /proc is swept.
// Processes left by a goweave that was killed are swept at the next goweave's first run.
// goweave does not make itself a child subreaper: reaping the orphans it would adopt
// races os/exec's own Wait of the go command and the tests.

// pidNamespaces is whether test processes get their own PID namespace; cleared for good
// once the kernel refuses one.
var pidNamespaces atomic.Bool

func init() { pidNamespaces.Store(true) }

// Containment says how the processes a test starts are contained (README: Containment).
func Containment() string {
	if pidNamespaces.Load() {
		return "pid-namespace"
	}
	return "process-group+sweep"
}

// processAttr starts the test process in its own process group, so that signalGroup
// reaches what it starts, in its own PID namespace when permitted, and has the kernel kill
// it should goweave itself die.
func processAttr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if !pidNamespaces.Load() {
		return a
	}
	a.Cloneflags = syscall.CLONE_NEWPID
	if uid, gid := os.Getuid(), os.Getgid(); os.Geteuid() != 0 {
		// The same ids inside as outside: the test keeps its user's rights and no more.
		a.Cloneflags |= syscall.CLONE_NEWUSER
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	}
	return a
}

// namespaceRefused reports whether starting a process with attr failed because the kernel
// does not permit its namespaces; then later processes start without them.
func namespaceRefused(attr *syscall.SysProcAttr, err error) bool {
	if attr == nil || attr.Cloneflags == 0 {
		return false
	}
	for _, errno := range []syscall.Errno{syscall.EPERM, syscall.EINVAL, syscall.ENOSPC, syscall.EUSERS, syscall.ENOSYS, syscall.EACCES} {
		if errors.Is(err, errno) {
			pidNamespaces.Store(false)
			return true
		}
	}
	return false
}

// sweep kills every process whose environment holds marker (envRun=marker), when PID
// namespaces do not contain the runs.
func sweep(marker string) {
	if pidNamespaces.Load() {
		return
	}
	sweepProc(func(value string) bool { return value == marker })
}

// sweepOrphans kills the processes left by runs of goweave processes that have died.
func sweepOrphans() {
	if pidNamespaces.Load() {
		return
	}
	sweepProc(func(value string) bool {
		owner, _, ok := strings.Cut(value, "-")
		pid, err := strconv.Atoi(owner)
		return ok && err == nil && pid != os.Getpid() && syscall.Kill(pid, 0) == syscall.ESRCH
	})
}

// sweepProc SIGKILLs the processes of this user whose envRun value matches. A process in
// the middle of an exec shows no environment for a moment: the sweep looks again until no
// process is in that state (for at most sweepRescans looks), and again after each kill (a
// process it killed may have just forked).
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

// sweepOnce makes one pass over /proc: whether it killed a process, and whether a process
// had no environment to read yet (in the middle of an exec).
func sweepOnce(match func(value string) bool) (killed, pending bool) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false, false
	}
	prefix := []byte(envRun + "=")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue // gone, or another user's
		}
		if len(env) == 0 {
			pending = pending || execing(e.Name())
			continue
		}
		for kv := range bytes.SplitSeq(env, []byte{0}) {
			if v, ok := bytes.CutPrefix(kv, prefix); ok && match(string(v)) {
				if syscall.Kill(pid, syscall.SIGKILL) == nil {
					killed = true
				}
				break
			}
		}
	}
	return killed, pending
}

// execing reports whether the process with an empty environment is a user process between
// the two halves of an exec (no command line yet either), not a kernel thread or a zombie.
func execing(pid string) bool {
	if cmdline, err := os.ReadFile("/proc/" + pid + "/cmdline"); err != nil || len(cmdline) > 0 {
		return false
	}
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return false
	}
	// Fields after the parenthesized command: state, ppid, pgrp, session, tty, tpgid, flags.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 7 || f[0] == "Z" || f[0] == "X" {
		return false
	}
	const pfKthread = 0x00200000
	flags, _ := strconv.ParseUint(f[6], 10, 64)
	return flags&pfKthread == 0
}
