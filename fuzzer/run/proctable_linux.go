package run

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// The processes the sweep looks at (sweep.go), from /proc.

// processIDs lists the processes of the system.
func processIDs() []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	pids := make([]int, 0, len(entries))
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// processEnviron returns the environment of process pid (NUL-separated), nothing for a
// process that is gone or another user's, and execing for a user process between the two
// halves of an exec, which shows no environment yet.
func processEnviron(pid int) (env []byte, execing bool) {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return nil, false // gone, or another user's
	}
	if len(env) == 0 {
		return nil, execInProgress(strconv.Itoa(pid))
	}
	return env, false
}

// execInProgress reports whether the process with an empty environment is a user process
// between the two halves of an exec (no command line yet either), not a kernel thread or a
// zombie.
func execInProgress(pid string) bool {
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
