//go:build unix

package run

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/build"
)

var statuses struct {
	once sync.Once
	bin  *build.TestBinary
	err  error
}

// statusesBinary builds testdata/statuses once for all tests of the package.
func statusesBinary(t testing.TB) *build.TestBinary {
	t.Helper()
	statuses.once.Do(func() {
		dir, err := os.MkdirTemp("", "goweave-fuzzer-test-")
		if err != nil {
			statuses.err = err
			return
		}
		overlay, err := build.Overlay(context.Background(), "testdata/statuses")
		if err != nil {
			statuses.err = err
			return
		}
		bins, err := build.Build(context.Background(), build.Options{Dir: "testdata/statuses", BinDir: dir, Overlay: overlay})
		if err != nil {
			statuses.err = err
			return
		}
		if len(bins) != 1 {
			statuses.err = fmt.Errorf("built %d binaries, want 1", len(bins))
			return
		}
		statuses.bin = bins[0]
	})
	if statuses.err != nil {
		t.Fatal(statuses.err)
	}
	return statuses.bin
}

func TestBuildListsTests(t *testing.T) {
	b := statusesBinary(t)
	want := "TestPass TestFail TestSkip TestPanic TestGoroutinePanic TestDeadlock TestHang TestHangWithChild TestFlood"
	if got := strings.Join(b.Tests, " "); got != want {
		t.Errorf("tests = %s\nwant %s", got, want)
	}
	abs, _ := filepath.Abs("testdata/statuses")
	if b.Dir != abs || b.Module != abs {
		t.Errorf("Dir, Module = %s, %s; want %s for both", b.Dir, b.Module, abs)
	}
}

func TestRunStatus(t *testing.T) {
	b := statusesBinary(t)
	for _, tc := range []struct {
		test string
		want Status
		meta string // how the recorder saw the process end
	}{
		{"TestPass", StatusPass, "exit"},
		{"TestFail", StatusFail, "exit"},
		{"TestSkip", StatusSkip, "exit"},
		{"TestPanic", StatusPanic, "panic"},
		{"TestGoroutinePanic", StatusPanic, "panic"},
		{"TestDeadlock", StatusDeadlock, "deadlock"},
		{"TestHang", StatusTimeout, "signal"},
	} {
		t.Run(tc.test, func(t *testing.T) {
			t.Parallel()
			r, err := Test(context.Background(), b, tc.test, Options{Timeout: 2 * time.Second, Trace: filepath.Join(t.TempDir(), "run.trace")})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != tc.want {
				t.Errorf("status %s, want %s; exit %d; output:\n%s", r.Status, tc.want, r.ExitCode, r.Output)
			}
			// Every way of ending leaves a trace: the runtime flushes it on exit, panic,
			// fatal error and the SIGQUIT goweave sends at the time limit.
			tr, err := trace.ReadFile(r.Trace)
			if err != nil {
				t.Fatalf("trace: %v", err)
			}
			if exit, want := tr.Meta["exit"], tc.meta; exit != want {
				t.Errorf("trace META exit=%q, want %q", exit, want)
			}
		})
	}
}

func TestRunDeadlockMessage(t *testing.T) {
	r, err := Test(context.Background(), statusesBinary(t), "TestDeadlock", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.Fatal, "all goroutines are asleep") {
		t.Errorf("Fatal = %q, want the runtime's deadlock message", r.Fatal)
	}
}

// A hung test is stopped at its time limit, and the process it started goes with it.
func TestRunKillsHungTestAndChildren(t *testing.T) {
	b := statusesBinary(t)
	tracePath := filepath.Join(t.TempDir(), "run.trace")
	const limit = time.Second
	pidFile := filepath.Join(t.TempDir(), "childpid")
	r, err := Test(context.Background(), b, "TestHangWithChild", Options{Timeout: limit, Grace: 500 * time.Millisecond, Trace: tracePath, Env: []string{"STATUSES_CHILD_PID_FILE=" + pidFile}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusTimeout {
		t.Errorf("status %s, want timeout", r.Status)
	}
	// SIGQUIT makes a Go program dump its goroutines: the test was stopped the way that
	// lets the runtime flush its trace, not killed outright.
	if !strings.Contains(r.Output, "SIGQUIT") {
		t.Errorf("output does not show the SIGQUIT:\n%s", r.Output)
	}
	if r.Elapsed > limit+5*time.Second {
		t.Errorf("run took %v with a %v limit", r.Elapsed, limit)
	}
	if _, err := trace.ReadFile(tracePath); err != nil {
		t.Errorf("no trace flushed at the time limit: %v", err)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the test did not record its child: %v", err)
	}
	pid, _ := strconv.Atoi(strings.Fields(string(data))[0])
	if pid <= 0 {
		t.Fatalf("bad child pid %q", data)
	}
	// The child was reparented and reaped by init (or is a zombie until then): poll briefly.
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("child process %d survived the run", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
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

func TestRunCapsFloodingOutput(t *testing.T) {
	const keep = 16 << 10
	r, err := Test(context.Background(), statusesBinary(t), "TestFlood", Options{MaxOutput: keep})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusPass {
		t.Errorf("status %s, want pass (the PASS line is in the kept tail)", r.Status)
	}
	if len(r.Output) > 2*keep+200 {
		t.Errorf("kept %d bytes of output, cap is %d at each end", len(r.Output), keep)
	}
	if !strings.Contains(r.Output, "=== RUN   TestFlood") || !strings.Contains(r.Output, "--- PASS: TestFlood") {
		t.Errorf("output lost its head or tail:\n%.300s\n...\n%s", r.Output, r.Output[max(0, len(r.Output)-300):])
	}
	if !strings.Contains(r.Output, "bytes of output dropped") {
		t.Error("output does not say bytes were dropped")
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	r, err := Test(ctx, statusesBinary(t), "TestHang", Options{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("cancelled run took %v", d)
	}
	if r.Status != StatusTimeout {
		t.Errorf("status %s, want timeout", r.Status)
	}
}

// runHelperEnv makes the test binary, started by TestRunDiesWithGoweave, act as a goweave
// process running a hung test: its TestMain runs the test and never returns.
const runHelperEnv = "FUZZER_TEST_RUN_HELPER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(runHelperEnv); spec != "" {
		// spec: binary, package dir, pid file, one a line
		f := strings.Split(spec, "\n")
		b := &build.TestBinary{Path: f[0], Dir: f[1], Module: f[1]}
		Test(context.Background(), b, "TestHangWithChild", Options{Timeout: time.Hour, Env: []string{"STATUSES_CHILD_PID_FILE=" + f[2]}})
		os.Exit(3)
	}
	os.Exit(m.Run())
}

// When goweave dies without cleaning up (SIGKILL, a crash), the kernel kills its test
// process: a hung test does not run on forever. (What the test process started itself is
// not covered: it is reparented, only goweave's own cleanup kills its process group.)
func TestRunDiesWithGoweave(t *testing.T) {
	b := statusesBinary(t)
	pidFile := filepath.Join(t.TempDir(), "pids")
	helper := exec.Command(os.Args[0], "-test.run=^$")
	helper.Env = append(os.Environ(), runHelperEnv+"="+b.Path+"\n"+b.Dir+"\n"+pidFile)
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	var pids []string
	for deadline := time.Now().Add(30 * time.Second); len(pids) != 2; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			helper.Process.Kill()
			t.Fatal("the hung test never started")
		}
		data, _ := os.ReadFile(pidFile)
		pids = strings.Fields(string(data))
	}
	child, _ := strconv.Atoi(pids[0])
	testProcess, _ := strconv.Atoi(pids[1])
	defer syscall.Kill(child, syscall.SIGKILL)
	helper.Process.Kill()
	helper.Wait()
	for deadline := time.Now().Add(5 * time.Second); alive(testProcess); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(testProcess, syscall.SIGKILL)
			t.Fatalf("test process %d outlived goweave", testProcess)
		}
	}
}
