package runtimepatch

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis/trace"
)

// The integration tests build testdata/events once with the overlay and run
// single tests of it with recording on.

var (
	workDir string // removed by TestMain

	buildOnce sync.Once
	binPath   string
	buildErr  error

	raceOnce sync.Once
	racePath string
	raceErr  error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "runtimepatch-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	workDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func testdataDir(t testing.TB) string {
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// buildEvents builds testdata/events with the overlay (and -race if race).
func buildEvents(t testing.TB, race bool) string {
	t.Helper()
	if race {
		skipRaceEmulated(t)
		raceOnce.Do(func() {
			racePath, raceErr = buildTestdata(t, "events", filepath.Join(workDir, "events-race.test"), "-race")
		})
		if raceErr != nil {
			failBuild(t, raceErr)
		}
		return racePath
	}
	buildOnce.Do(func() { binPath, buildErr = buildTestdata(t, "events", filepath.Join(workDir, "events.test")) })
	if buildErr != nil {
		failBuild(t, buildErr)
	}
	return binPath
}

// testdataRelease returns the release line of the toolchain that builds
// testdata (GOTOOLCHAIN chooses it: .ci/toolchains.sh).
func testdataRelease(t testing.TB) release {
	t.Helper()
	tc, err := FindToolchain(context.Background(), testdataDir(t))
	if err != nil {
		t.Fatal(err)
	}
	rel, err := tc.release()
	if err != nil {
		t.Skip(err)
	}
	return rel
}

// errShort is buildTestdata's answer under -short. It is an error, not a t.Skip: the builds
// run inside sync.Once, where a skip would end only the first test and leave the others an
// empty binary path.
var errShort = errors.New("-short: the build compiles the standard library with the overlay")

// failBuild ends a test whose binary did not build: a skip under -short, else a failure.
func failBuild(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, errShort) {
		t.Skip(err)
	}
	t.Fatal(err)
}

// buildTestdata builds the test binary of testdata/<pkg> with the overlay.
func buildTestdata(t testing.TB, pkg, out string, extra ...string) (string, error) {
	if testing.Short() {
		return "", errShort
	}
	dir := filepath.Join(testdataDir(t), pkg)
	ov, err := Prepare(context.Background(), dir)
	if err != nil {
		return "", err
	}
	args := append([]string{"test", "-c", "-o", out, "-overlay=" + ov.Path}, extra...)
	cmd := ov.Command(context.Background(), append(args, ".")...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Env, "GOFLAGS=", "GOWORK=off")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	return out, nil
}

// result is one recorded run of one test of testdata/events.
type result struct {
	tr     *trace.Trace
	output string
	err    error // the process's exit status
}

// record runs test name of bin with recording on. If sig is not nil, the
// signal is sent once the program prints READY.
func record(t testing.TB, bin, name string, sig os.Signal, env ...string) result {
	t.Helper()
	if sig == syscall.SIGINT && signal.Ignored(syscall.SIGINT) {
		// Started in the background by a shell without job control, this process
		// ignores SIGINT, and so would the program (an ignored signal stays ignored
		// through exec, and the Go runtime keeps SIGINT ignored). Handled here, it is
		// reset to the default for the program at exec.
		signal.Notify(make(chan os.Signal, 1), syscall.SIGINT)
	}
	out := filepath.Join(t.TempDir(), "trace.gwt")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := binCommand(ctx, bin, "-test.run=^"+name+"$", "-test.timeout=0", "-test.count=1")
	cmd.Env = append(os.Environ(), EnvTrace+"="+out, EnvModule+"="+testdataDir(t))
	cmd.Env = append(cmd.Env, env...)
	var output, stderr bytes.Buffer
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		output.WriteString(line + "\n")
		if sig != nil && line == "READY" {
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
		}
	}
	runErr := cmd.Wait()
	output.Write(stderr.Bytes())
	if ctx.Err() != nil {
		t.Fatalf("%s did not end: %s", name, output.String())
	}
	tr, err := trace.ReadFile(out)
	if err != nil {
		t.Fatalf("%s: reading the trace: %v\noutput:\n%s", name, err, output.String())
	}
	return result{tr: tr, output: output.String(), err: runErr}
}

// markers maps each "// @name" marker of testdata/events to "file:line".
func markers(t *testing.T) map[string]string {
	t.Helper()
	return markersIn(t, "events")
}

// markersIn maps each "// @name" marker of testdata/<pkg> to "file:line".
func markersIn(t testing.TB, pkg string) map[string]string {
	t.Helper()
	dir := filepath.Join(testdataDir(t), pkg)
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`// @([\w.]+)`)
	m := make(map[string]string)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if sm := re.FindStringSubmatch(line); sm != nil {
				m[sm[1]] = fmt.Sprintf("%s:%d", f, i+1)
			}
		}
	}
	return m
}

// at returns the events of kind k attributed to marker name.
func at(t *testing.T, tr *trace.Trace, k trace.Kind, name string) []trace.Event {
	t.Helper()
	pos, ok := markers(t)[name]
	if !ok {
		t.Fatalf("no marker @%s in testdata", name)
	}
	var evs []trace.Event
	for _, e := range tr.Events {
		if e.Kind == k && tr.Position(e.Pos).String() == pos {
			evs = append(evs, e)
		}
	}
	return evs
}

// one returns the single event of kind k at marker name.
func one(t *testing.T, tr *trace.Trace, k trace.Kind, name string) trace.Event {
	t.Helper()
	evs := at(t, tr, k, name)
	if len(evs) != 1 {
		t.Fatalf("%d %s events at @%s, want 1\n%s", len(evs), k, name, dump(tr))
	}
	return evs[0]
}

func dump(tr *trace.Trace) string {
	var b strings.Builder
	for _, e := range tr.Events {
		fmt.Fprintf(&b, "%4d %-13s g=%d obj=%d pre=%d post=%d a=%d b=%d c=%d flags=%s %s\n",
			e.Index, e.Kind, e.G, e.Obj, e.Pre, e.Post, int64(e.A), e.B, e.C, e.Flags, tr.Position(e.Pos))
		for _, c := range e.Cases {
			fmt.Fprintf(&b, "       case %d obj=%d send=%v valueused=%v\n", c.Index, c.Obj, c.Send, c.ValueUsed)
		}
	}
	for _, g := range tr.Goroutines {
		fmt.Fprintf(&b, "goroutine %d status=%d %q last=%d parent=%d\n", g.ID, g.Status, g.WaitReason, g.LastEvent, g.Parent)
	}
	return b.String()
}

func exitSignal(err error) syscall.Signal {
	if ee, ok := err.(*exec.ExitError); ok {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return ws.Signal()
		}
	}
	return 0
}

// envEmulator names a program that runs the test binaries built from testdata for
// another architecture (GOARCH in the environment), e.g. linux/arm64 on an amd64 host:
//
//	go test -c -o rp.test ./runtimepatch
//	GOARCH=arm64 CGO_ENABLED=1 CC=aarch64-linux-gnu-gcc QEMU_LD_PREFIX=/usr/aarch64-linux-gnu \
//		GOWEAVE_TEST_EMULATOR=qemu-aarch64 ./rp.test
const envEmulator = "GOWEAVE_TEST_EMULATOR"

// skipRaceEmulated skips a test of a -race build under envEmulator: the race detector
// does not run under qemu-user (its ThreadSanitizer needs a 48-bit address space on
// arm64, qemu gives 39 bits).
func skipRaceEmulated(t testing.TB) {
	t.Helper()
	if e := os.Getenv(envEmulator); e != "" {
		t.Skipf("-race build under %s: the race detector does not run emulated", e)
	}
}

// binCommand runs bin, a test binary built from testdata, through envEmulator when set.
func binCommand(ctx context.Context, bin string, args ...string) *exec.Cmd {
	if emulator := os.Getenv(envEmulator); emulator != "" {
		return exec.CommandContext(ctx, emulator, append([]string{bin}, args...)...)
	}
	return exec.CommandContext(ctx, bin, args...)
}
