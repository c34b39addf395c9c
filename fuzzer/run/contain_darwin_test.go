package run

import (
	"bytes"
	"os"
	"strconv"
	"testing"
)

// forEachContainment runs f with the one containment macOS has: process group and sweep.
func forEachContainment(t *testing.T, f func(t *testing.T)) {
	t.Run("process-group+sweep", f)
}

// setContainment: nothing to choose on macOS.
func setContainment(string) {}

// withEnv lists the live (not zombie) processes whose environment holds kv.
func withEnv(kv string) []int {
	var pids []int
	for _, pid := range processIDs() {
		if pid == os.Getpid() {
			continue
		}
		env, _ := processEnviron(pid)
		for e := range bytes.SplitSeq(env, []byte{0}) {
			if string(e) == kv {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// describe names a process in a failure message.
func describe(pid int) string { return "pid " + strconv.Itoa(pid) }
