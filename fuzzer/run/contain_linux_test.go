package run

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// forEachContainment runs f with PID namespaces, when the kernel permits them here, and
// with the process group and sweep that replace them elsewhere.
func forEachContainment(t *testing.T, f func(t *testing.T)) {
	if pidNamespaces.Load() {
		t.Run("pid-namespace", f)
	}
	t.Run("process-group+sweep", func(t *testing.T) {
		was := pidNamespaces.Load()
		pidNamespaces.Store(false)
		defer pidNamespaces.Store(was)
		f(t)
	})
}

// setContainment makes a helper goweave process contain its runs as its parent test does.
func setContainment(name string) { pidNamespaces.Store(name == "pid-namespace") }

// withEnv lists the live (not zombie) processes whose environment holds kv.
func withEnv(kv string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() || !alive(pid) {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err == nil && slices.Contains(strings.Split(string(env), "\x00"), kv) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// alive reports whether pid is a live (not zombie) process.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the parenthesized command name.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// describe is a process's /proc stat line, for a failure message.
func describe(pid int) string {
	stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return strings.TrimSpace(string(stat))
}
