package run

import (
	"errors"
	"os"
	"sync/atomic"
	"syscall"
)

// Containment of what a test starts. Each test process is the init of its own PID
// namespace (through an unprivileged user namespace unless goweave runs as root): when it
// ends, however it ends, the kernel kills everything else in the namespace, setsid'd and
// double-forked daemons included; and it has the parent-death signal, so a goweave that
// is killed (SIGKILL included) takes it, and so the whole namespace, along.
//
// Where namespaces are not permitted (user namespaces disabled, seccomp), the test runs in
// its own process group only, and every process that still carries the run's marker
// (envRun, inherited through fork and exec) is killed when the run ends: /proc is swept
// (sweep.go, the code macOS runs too). Processes left by a goweave that was killed are
// swept at the next goweave's first run.
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
	sweepMarked(marker)
}

// sweepOrphans kills the processes left by runs of goweave processes that have died.
func sweepOrphans() {
	if pidNamespaces.Load() {
		return
	}
	sweepOrphaned()
}
