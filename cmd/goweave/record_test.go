package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/internal/wants"
)

var goweaveBinary struct {
	once sync.Once
	path string
	err  error
}

// buildGoweave builds the command once for the tests that run it as a process.
func buildGoweave(t *testing.T) string {
	t.Helper()
	goweaveBinary.once.Do(func() {
		dir, err := os.MkdirTemp("", "goweave-cmd-test-")
		if err != nil {
			goweaveBinary.err = err
			return
		}
		goweaveBinary.path = filepath.Join(dir, "goweave")
		if out, err := exec.Command("go", "build", "-o", goweaveBinary.path, ".").CombinedOutput(); err != nil {
			goweaveBinary.err = &buildFailure{err, out}
		}
	})
	if goweaveBinary.err != nil {
		t.Fatal(goweaveBinary.err)
	}
	return goweaveBinary.path
}

type buildFailure struct {
	err error
	out []byte
}

func (b *buildFailure) Error() string {
	return "building goweave: " + b.err.Error() + "\n" + string(b.out)
}

// runGoweave runs the command in dir and returns stdout, stderr and the exit code.
func runGoweave(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(buildGoweave(t), args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

func TestRecordCommand(t *testing.T) {
	dir, _ := filepath.Abs("../../fuzzer/run/testdata/statuses")
	stdout, stderr, code := runGoweave(t, dir, "record", "-run", "^Test(Pass|Panic|Deadlock|Hang)$", "-timeout", "1s", "-o", t.TempDir())
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines, want one per test:\n%s\nstderr:\n%s", len(lines), stdout, stderr)
	}
	want := map[string]string{"TestPass": "pass", "TestPanic": "panic", "TestDeadlock": "deadlock", "TestHang": "timeout"}
	traced := 0
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) < 3 {
			t.Errorf("short line %q", line)
			continue
		}
		name := strings.TrimPrefix(f[1], "statuses.")
		if want[name] != f[0] {
			t.Errorf("%s: status %s, want %s", name, f[0], want[name])
		}
		if f[3] == "events" {
			traced++
			if _, err := os.Stat(f[4]); err != nil {
				t.Errorf("%s: trace %s: %v", name, f[4], err)
			}
		} else if !strings.Contains(line, "no trace") {
			t.Errorf("line %q names neither a trace nor its absence", line)
		}
	}
	// Without a trace a recording failed: the command says so and exits 2.
	if traced < 4 && (code != 2 || !strings.Contains(stderr, "left no readable trace")) {
		t.Errorf("%d of 4 traced, exit %d, stderr:\n%s", traced, code, stderr)
	}
	if traced == 4 && code != 0 {
		t.Errorf("every test traced, exit %d, stderr:\n%s", code, stderr)
	}
}

func TestRecordCommandBuildError(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module broken\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b_test.go"), []byte("package broken\n\nimport \"testing\"\n\nfunc TestB(t *testing.T) { var x int = \"s\" }\n"), 0o644)
	_, stderr, code := runGoweave(t, dir, "record", "-o", t.TempDir())
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	if !strings.Contains(stderr, "cannot build the tests of broken") || !strings.Contains(stderr, "b_test.go:5") {
		t.Errorf("stderr lacks the compiler's output:\n%s", stderr)
	}
	if strings.Contains(stderr, "build with plain go") {
		t.Errorf("a test that does not compile at all is blamed on goweave:\n%s", stderr)
	}
}

// A package whose constants depend on the size of a sync type (padding to a cache line, as
// puzpuzpuz/xsync's map buckets) builds under goweave's runtime as with plain go: the patch
// keeps sync.Mutex at its stock size (runtimepatch's zz_goweave_objid.go keeps ids outside).
func TestRecordCommandPaddedBuilds(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module padded\n\ngo 1.25\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "p.go"), []byte("package padded\n\nimport (\n\t\"sync\"\n\t\"unsafe\"\n)\n\n"+
		"type slot struct {\n\tmu sync.Mutex\n\tv  [7]uint64\n}\n\n"+
		"// padded to a 64-byte cache line: 0 bytes of padding with the stock sync.Mutex\n"+
		"type line struct {\n\tslot\n\t_ [64 - unsafe.Sizeof(slot{})]byte\n}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "p_test.go"), []byte("package padded\n\nimport \"testing\"\n\nfunc TestLine(t *testing.T) { var l line; l.mu.Lock(); l.mu.Unlock() }\n"), 0o644)
	_, stderr, code := runGoweave(t, dir, "record", "-race=false", "-o", t.TempDir())
	if code != 0 || strings.Contains(stderr, "cannot build") {
		t.Errorf("exit %d, want 0; stderr:\n%s", code, stderr)
	}
}

// goweave record over the whole acceptance corpus (../shared/corpus beside the checkout):
// every kernel's test leaves a readable trace, the ones that panic included, and the status
// is the one the process had (the trace's META exit agrees with it). A kernel whose outcome
// does not depend on the schedule has the corpus table's status: a correct kernel passes,
// an "actual (fails)" one panics. Every other kernel holds a bug that its sleeps make
// unlikely, not impossible: its plain run passes on a quiet machine, and under load the
// bad schedule comes now and then (concurrent_recv's second caller, staggered by 10 ms,
// overtakes the first and the replies swap: status fail), so there either status is right.
func TestRecordCorpusCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every corpus kernel")
	}
	corpus, _ := filepath.Abs(filepath.Join("..", "..", "..", "shared", "corpus"))
	if _, err := os.Stat(filepath.Join(corpus, "go.mod")); err != nil {
		t.Skipf("no corpus at %s", corpus)
	}
	kernels, err := wants.ReadCorpusTable(filepath.Join(corpus, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runGoweave(t, corpus, "record", "-timeout", "20s", "-o", t.TempDir(), "./...")
	if code != 0 {
		t.Errorf("exit %d; stderr:\n%s", code, stderr)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		// "<status> corpus/<kernel>.<Test>  <n> events  <trace>"
		f := strings.Fields(line)
		if len(f) != 5 || f[3] != "events" {
			t.Errorf("line %q: want status, test, event count and trace", line)
			continue
		}
		kernel := strings.TrimPrefix(f[1][:strings.IndexByte(f[1], '.')], "corpus/")
		seen[kernel] = true
		k, ok := kernels[kernel]
		if !ok {
			t.Errorf("%s: not in the corpus table", kernel)
			continue
		}
		status := f[0]
		if want, fixed := plainRunStatus(k); fixed && status != want {
			t.Errorf("%s: status %s, want %s", kernel, status, want)
		} else if !fixed && status != "pass" {
			t.Logf("%s: status %s: the kernel's bug showed in its plain run", kernel, status)
		}
		if n, err := strconv.Atoi(f[2]); err != nil || n == 0 {
			t.Errorf("%s: %s events", kernel, f[2])
		}
		tr, err := trace.ReadFile(f[4])
		if err != nil {
			t.Errorf("%s: %v", kernel, err)
		} else if exit, code := exitOfStatus(status); tr.Meta["exit"] != exit || code != "" && tr.Meta["exitcode"] != code {
			t.Errorf("%s: status %s, trace META exit=%s exitcode=%s; want exit=%s exitcode=%s", kernel, status, tr.Meta["exit"], tr.Meta["exitcode"], exit, code)
		}
	}
	if len(seen) != len(kernels) {
		t.Errorf("recorded %d kernels, the corpus table has %d", len(seen), len(kernels))
	}
}

// plainRunStatus is the status every plain run of kernel k ends with, when that does not
// depend on the schedule: "panic" for a kernel that fails in every run ("actual (fails)"),
// "pass" for a correct kernel (no expected kinds). fixed is false for the other kernels.
func plainRunStatus(k wants.Kernel) (status string, fixed bool) {
	for _, how := range k.FoundBy {
		if strings.HasPrefix(how, "actual (fails)") {
			return "panic", true
		}
	}
	return "pass", len(k.FoundBy) == 0
}

// exitOfStatus is how the recorder must have seen a process with that status end: its
// META exit and, for a normal exit, the exit code ("" when any).
func exitOfStatus(status string) (exit, code string) {
	switch status {
	case "pass", "skip":
		return "exit", "0"
	case "fail":
		return "exit", "1"
	case "panic":
		return "panic", ""
	case "deadlock":
		return "deadlock", ""
	case "timeout":
		return "signal", ""
	}
	return "fatal", ""
}
