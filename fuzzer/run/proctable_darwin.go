package run

import (
	"golang.org/x/sys/unix"
)

// The processes the sweep looks at (sweep.go), from the kernel's sysctl tables: macOS has
// no /proc. Compiled in CI (.ci/cross.sh), never run there: no Mac.

// processIDs lists the live processes of the system (kern.proc.all), zombies left out.
func processIDs() []int {
	procs, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil
	}
	const sZomb = 5 // <sys/proc.h>
	pids := make([]int, 0, len(procs))
	for _, p := range procs {
		if p.Proc.P_stat != sZomb {
			pids = append(pids, int(p.Proc.P_pid))
		}
	}
	return pids
}

// processEnviron returns the environment of process pid (NUL-separated) from its
// kern.procargs2 record, nothing for a process that is gone, another user's or a system
// process. A process in the middle of an exec has its old record or its new one, both
// with the inherited environment: execing is always false here.
func processEnviron(pid int) (env []byte, execing bool) {
	buf, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil {
		return nil, false
	}
	return procargsEnv(buf), false
}
