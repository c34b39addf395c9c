package run

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// procargs2 builds the kern.procargs2 record macOS would give for a live process, from its
// /proc files: argc, the executable's path and NUL padding, the arguments, the environment,
// and the strings the kernel adds after it (apple[]).
func procargs2(t *testing.T, pid int) []byte {
	t.Helper()
	dir := "/proc/" + strconv.Itoa(pid)
	exe, err := os.Readlink(dir + "/exe")
	if err != nil {
		t.Fatal(err)
	}
	cmdline, err := os.ReadFile(dir + "/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	env, err := os.ReadFile(dir + "/environ")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, uint32(bytes.Count(cmdline, []byte{0})))
	b.WriteString(exe)
	b.Write(make([]byte, 8-len(exe)%8)) // the path's NUL and the padding
	b.Write(cmdline)
	b.Write(env)
	b.WriteString("\x00executable_path=" + exe + "\x00ptr_munge=\x00")
	return b.Bytes()
}

// The sweep on macOS reads a process's marker from its kern.procargs2 record: found in the
// environment of a real process, not in an argument that looks like it, not in a record
// without an environment.
func TestProcargsMarker(t *testing.T) {
	// The marker-like argument is the shell's $0 (the shell does not exec sleep: it has a command after it).
	cmd := exec.Command("sh", "-c", "sleep 3600; :", envRun+"=in-an-argument")
	cmd.Env = []string{"A=1", envRun + "=4242-7", "Z=2"}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	// The shell shows its environment once its exec is complete.
	var rec []byte
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		env, _ := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/environ")
		if len(env) > 0 {
			rec = procargs2(t, cmd.Process.Pid)
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the shell never showed its environment")
		}
	}
	env := procargsEnv(rec)
	if !markedBy(env, func(v string) bool { return v == "4242-7" }) {
		t.Errorf("environment %q: no marker 4242-7", env)
	}
	if markedBy(env, func(v string) bool { return v == "in-an-argument" }) {
		t.Errorf("environment %q: the argument taken for the marker", env)
	}
	if got := bytes.Split(bytes.TrimSuffix(env, []byte{0}), []byte{0}); len(got) != 3 {
		t.Errorf("environment %q: %d entries, want A, %s and Z", env, len(got), envRun)
	}

	// Only arguments, one of which looks like the marker.
	noEnv := binary.LittleEndian.AppendUint32(nil, 2)
	noEnv = append(noEnv, "/bin/sh\x00\x00\x00sh\x00"+envRun+"=1-1\x00\x00executable_path=/bin/sh\x00"...)
	if env := procargsEnv(noEnv); markedBy(env, func(string) bool { return true }) {
		t.Errorf("a record without an environment gave the marker: %q", env)
	}
	for _, short := range [][]byte{nil, {1, 0}, {1, 0, 0, 0, 'x'}} {
		if env := procargsEnv(short); env != nil {
			t.Errorf("truncated record %q: environment %q", short, env)
		}
	}
}
