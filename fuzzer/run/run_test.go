//go:build unix

package run

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
	dir  string // removed by TestMain
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
		statuses.dir = dir
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

// A hung test is stopped at its time limit, and the processes it started go with it.
func TestRunKillsHungTestAndChildren(t *testing.T) {
	forEachContainment(t, func(t *testing.T) {
		b := statusesBinary(t)
		tracePath := filepath.Join(t.TempDir(), "run.trace")
		// The grace is long: a loaded machine may take seconds to dump the goroutines and
		// flush the trace after SIGQUIT, and the process exits by itself when done.
		const limit, grace = time.Second, 30 * time.Second
		mark := marker(t)
		r, err := Test(context.Background(), b, "TestHangWithChild", Options{Timeout: limit, Grace: grace, Trace: tracePath, Env: []string{mark}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != StatusTimeout {
			t.Errorf("status %s, want timeout\n%s", r.Status, r.Output)
		}
		// SIGQUIT makes a Go program dump its goroutines: the test was stopped the way that
		// lets the runtime flush its trace, not killed outright.
		if !strings.Contains(r.Output, "SIGQUIT") {
			t.Errorf("output does not show the SIGQUIT:\n%s", r.Output)
		}
		if r.Elapsed > limit+grace {
			t.Errorf("run took %v with a %v limit", r.Elapsed, limit)
		}
		if _, err := trace.ReadFile(tracePath); err != nil {
			t.Errorf("no trace flushed at the time limit: %v (exit %d, signal %q, %v)\n%s", err, r.ExitCode, r.Signal, r.Elapsed, r.Output[max(0, len(r.Output)-1500):])
		}
		noneLeft(t, mark)
	})
}

// A test that passes and leaves daemons behind (in their own sessions) leaves no process.
func TestRunLeavesNoProcess(t *testing.T) {
	forEachContainment(t, func(t *testing.T) {
		mark := marker(t)
		started := filepath.Join(t.TempDir(), "started")
		r, err := Test(context.Background(), statusesBinary(t), "TestHangWithChild", Options{Env: []string{mark, "STATUSES_PASS=1", "STATUSES_STARTED_FILE=" + started}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(started); r.Status != StatusPass || err != nil {
			t.Fatalf("status %s, started file: %v\n%s", r.Status, err, r.Output)
		}
		noneLeft(t, mark)
	})
}

// marker is an environment variable that the processes of one test inherit.
func marker(t *testing.T) string {
	return fmt.Sprintf("GOWEAVE_TEST_MARK=%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "."))
}

// noneLeft fails the test if a live process still carries mark in its environment. The
// kernel has delivered every SIGKILL when goweave's Test returns, but a killed process may
// take a moment to exit: the check waits until none is left, for at most 10 seconds.
func noneLeft(t *testing.T, mark string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := withEnv(mark)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			var what []string
			for _, pid := range left {
				what = append(what, describe(pid))
				syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Fatalf("processes survived the run:\n%s", strings.Join(what, "\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}
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
		// spec: binary, package dir, started file, marker, containment; one a line
		f := strings.Split(spec, "\n")
		setContainment(f[4])
		b := &build.TestBinary{Path: f[0], Dir: f[1], Module: f[1]}
		Test(context.Background(), b, "TestHangWithChild", Options{Timeout: time.Hour, Env: []string{"STATUSES_STARTED_FILE=" + f[2], f[3]}})
		os.Exit(3)
	}
	code := m.Run()
	if statuses.dir != "" {
		os.RemoveAll(statuses.dir)
	}
	os.Exit(code)
}

// When goweave is killed (SIGKILL: no cleanup of its own), nothing the test started
// survives: in a PID namespace the kernel kills the test (parent-death signal) and with
// it the namespace; without, the next goweave's first run sweeps what is left.
func TestRunDiesWithGoweave(t *testing.T) {
	forEachContainment(t, func(t *testing.T) {
		b := statusesBinary(t)
		started := filepath.Join(t.TempDir(), "started")
		mark := marker(t)
		helper := exec.Command(os.Args[0], "-test.run=^$")
		helper.Env = append(os.Environ(), runHelperEnv+"="+strings.Join([]string{b.Path, b.Dir, started, mark, Containment()}, "\n"))
		if err := helper.Start(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat(started); err == nil {
				break
			}
			if time.Now().After(deadline) {
				helper.Process.Kill()
				t.Fatal("the hung test never started its processes")
			}
		}
		// The orphan may still be in the middle of its exec (no environment to read yet).
		for deadline := time.Now().Add(10 * time.Second); len(withEnv(mark)) < 4; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d processes carry the marker, want the test and its three", len(withEnv(mark)))
			}
		}
		helper.Process.Kill()
		helper.Wait()
		if Containment() != "pid-namespace" {
			sweepOrphans() // what the next goweave does before its first run
		}
		noneLeft(t, mark)
	})
}
