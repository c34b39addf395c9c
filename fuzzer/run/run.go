package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/goweave/goweave/fuzzer/build"
	"github.com/goweave/goweave/fuzzer/schedule"
	"github.com/goweave/goweave/runtimepatch"
)

// Environment variables read by the goweave runtime in a test process.
const (
	envTrace    = runtimepatch.EnvTrace  // where the process writes its trace
	envModule   = runtimepatch.EnvModule // module root: operations in files below it are user code
	envSchedule = schedule.Env           // the schedule file to enforce
	// envTimeLimit arms the runtime's leak check at the time limit (askLeakCheck).
	envTimeLimit = runtimepatch.EnvTimeLimit
	// envProgress names the file the runtime keeps its progress record in (progress.go).
	envProgress = runtimepatch.EnvProgress
	// envRun marks a test process and everything it starts (inherited) with goweave's pid
	// and the run's number, so that what escapes the process group can be found (sweep).
	envRun = "GOWEAVE_RUN"
)

// runs numbers the test processes of this goweave process (envRun).
var runs atomic.Uint64

// sweepOrphansOnce sweeps, before the first run, what runs of killed goweave processes left.
var sweepOrphansOnce sync.Once

// Options control one run of one test.
type Options struct {
	// Trace is the path the runtime writes the trace to; empty disables recording.
	Trace string
	// Schedule, when not empty, is the path of a schedule recipe for the runtime to enforce.
	Schedule string
	// Timeout is the time limit of the process (default 10s). A process still making
	// progress then goes on up to SlowLimit (progress.go). When stopped, a recording
	// process is first asked to check which of its goroutines are blocked for good
	// (askLeakCheck), which ends it as SIGQUIT does, within max(Grace, leakCheckWait);
	// then the process group gets SIGQUIT, which the patched runtime catches to flush the
	// trace, and SIGKILL after Grace.
	Timeout time.Duration
	// Grace is how long a process may take to exit after each of the time limit's
	// signals (default 2s).
	Grace time.Duration
	// SlowLimit is how long a run still making progress at Timeout may go on (see
	// progress.go): up to SlowLimit it is stopped only once it stops progressing. Not
	// above Timeout: every run is stopped at Timeout, as stuck or, when it was still
	// progressing, as slow (Run.Progressing).
	SlowLimit time.Duration
	// MaxOutput is how many bytes of output are kept at each end (default 64 KiB).
	MaxOutput int
	// Env holds extra environment variables (KEY=value) for the process.
	Env []string
}

// A Run is the outcome of one process running one test.
type Run struct {
	Package  string
	Test     string
	Status   Status
	ExitCode int           // -1 when killed by a signal
	Signal   string        // the signal that ended the process, if any
	Output   string        // combined stdout and stderr, middle dropped when long
	Fatal    string        // the runtime's "fatal error:" message, if any
	Panic    string        // the first panic message, if any
	DataRace bool          // the race detector reported a race
	Races    [][]string    // the race detector's reports, one slice of lines each
	Trace    string        // path of the trace, when one was written
	Schedule string        // the schedule file the run was given, if any
	Canceled bool          // stopped because ctx was cancelled: says nothing about the test
	Elapsed  time.Duration // wall-clock time of the process
	// Slow: the run was still making progress at its time limit and went on past it
	// (Options.SlowLimit); Elapsed says how long it took.
	Slow bool
	// Progressing: goweave stopped the run (a timeout) while it was still making progress,
	// at Options.SlowLimit: it was slow, there is no evidence that it was stuck.
	Progressing bool
	// Evidence says what showed progress the last time a slow run was probed ("12% CPU",
	// "operations recorded", ...), for the warning that names the run.
	Evidence string
}

// Test runs one test of b in its own process group and waits until the process and
// everything it started are gone. It returns an error only when the process cannot be
// started; how the test ended is in Run.Status.
func Test(ctx context.Context, b *build.TestBinary, test string, opts Options) (*Run, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.Grace <= 0 {
		opts.Grace = 2 * time.Second
	}
	if opts.MaxOutput <= 0 {
		opts.MaxOutput = 64 << 10
	}
	sweepOrphansOnce.Do(sweepOrphans)
	marker := fmt.Sprintf("%d-%d", os.Getpid(), runs.Add(1))
	env := append(append(os.Environ(), opts.Env...), envModule+"="+b.Module, raceOptions(), envRun+"="+marker)
	progressFile := ""
	if opts.Trace != "" {
		if err := os.MkdirAll(filepath.Dir(opts.Trace), 0o755); err != nil {
			return nil, err
		}
		os.Remove(opts.Trace) // a stale trace must not pass for this run's
		progressFile = strings.TrimSuffix(opts.Trace, ".trace") + ".progress"
		os.Remove(progressFile)
		defer os.Remove(progressFile)
		env = append(env, envTrace+"="+opts.Trace, envTimeLimit+"="+strconv.Itoa(runtimepatch.TimeLimitSignal),
			envProgress+"="+progressFile)
	}
	if opts.Schedule != "" {
		env = append(env, envSchedule+"="+opts.Schedule)
	}

	// The child writes into a pipe we read ourselves: exec's own copying would wait for
	// grandchildren that keep the pipe open.
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	out := newCappedOutput(opts.MaxOutput)
	start := time.Now()
	var cmd *exec.Cmd
	for {
		// -test.timeout=0: a pending timeout timer stops the runtime from ever reporting
		// "all goroutines are asleep"; goweave enforces the limit from outside instead.
		cmd = exec.Command(b.Path, "-test.run", "^"+regexp.QuoteMeta(test)+"$",
			"-test.count=1", "-test.timeout=0", "-test.v", "-test.paniconexit0")
		cmd.Env = env
		build.InDir(cmd, b.Dir)
		cmd.Stdout, cmd.Stderr = pw, pw
		cmd.SysProcAttr = processAttr()
		err := cmd.Start()
		if err == nil {
			break
		}
		if namespaceRefused(cmd.SysProcAttr, err) {
			continue // the next attempt starts it without a namespace
		}
		pr.Close()
		pw.Close()
		return nil, fmt.Errorf("starting %s: %v", b.Path, err)
	}
	pw.Close()
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		buf := make([]byte, 32<<10)
		for {
			n, err := pr.Read(buf)
			out.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()

	pgid := cmd.Process.Pid
	exited := make(chan struct{})
	cancelled := false
	// slow: the run went on past its time limit, making progress; progressing: it still
	// was when its cap stopped it; stoppedAtLimit: goweave stopped it after the limit.
	var slow, progressing, stoppedAtLimit bool
	var evidence string
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		// cancel ends the run at once when ctx is cancelled: the run says nothing about the
		// test and its trace is not read (a campaign's time budget ends its runs this way).
		cancel := func() {
			cancelled = true
			signalGroup(pgid, false)
		}
		// wait waits d for the process to exit (true) or ctx to end (cancelled, true).
		wait := func(d time.Duration) bool {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-exited:
				return true
			case <-ctx.Done():
				cancel()
				return true
			case <-t.C:
				return false
			}
		}
		// The evidence of progress at the time limit is compared with a sample taken a
		// window before it.
		probe := progressProbe{pgid: pgid, file: progressFile}
		window := min(progressWindow, opts.Timeout/2)
		if wait(opts.Timeout - window) {
			return
		}
		before := probe.sample()
		if wait(window) {
			return
		}
		for {
			now := probe.sample()
			why := progressed(before, now)
			if why == "" {
				// A test that printed its verdict is exiting (exit hooks, the trace's
				// write), not stuck: TestSlowRunFinishes was stopped there under load.
				if out.reported() && wait(opts.Grace) {
					return
				}
				break // stuck: stopped now
			}
			evidence = why
			left := start.Add(opts.SlowLimit).Sub(now.at)
			if left <= 0 {
				progressing = true // at its cap, still working: slow, not stuck
				break
			}
			slow = true
			before = now
			if wait(min(window, left)) {
				return
			}
		}
		stoppedAtLimit = true
		if opts.Trace != "" && askLeakCheck(pgid) {
			if wait(max(opts.Grace, leakCheckWait)) {
				return
			}
		}
		signalGroup(pgid, true)
		if !exitsWhileWriting(exited, opts.Trace, opts.Grace) {
			signalGroup(pgid, false)
		}
	}()
	waitErr := cmd.Wait()
	close(exited)
	<-stopped
	// Whatever the test started in its process group goes with it (in a PID namespace,
	// the kernel has killed everything else already), and what left the group.
	signalGroup(pgid, false)
	sweep(marker)
	select {
	case <-copied:
	case <-time.After(time.Second):
		// A descendant that left the group still holds the pipe: stop reading.
	}
	pr.Close()
	<-copied

	r := &Run{Package: b.Package, Test: test, Schedule: opts.Schedule, Elapsed: time.Since(start), ExitCode: cmd.ProcessState.ExitCode()}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		r.Signal = ws.Signal().String()
	}
	var ee *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &ee) {
		return nil, fmt.Errorf("waiting for %s: %v", b.Path, waitErr)
	}
	text, markers := out.finish()
	r.Output, r.Fatal, r.Panic = text, markers.Fatal, markers.PanicMessage
	r.DataRace, r.Races = markers.DataRace, markers.Races
	if opts.Trace != "" {
		if _, err := os.Stat(opts.Trace); err == nil {
			r.Trace = opts.Trace
		}
	}
	// A slow run that finished past its time limit ended as it ended; one stopped there, at
	// its cap or once it stopped progressing, is a timeout.
	r.Status = classify(r.ExitCode, r.Signal != "", stoppedAtLimit || cancelled, markers)
	r.Canceled = cancelled
	r.Slow, r.Progressing, r.Evidence = slow, progressing, evidence
	return r, nil
}

// leakCheckWait is how long a process stopped at its time limit may take to answer the
// leak check (askLeakCheck): the GC's leak detection and writing its trace took 2 s for 100K
// goroutines on a loaded machine; most processes answer in milliseconds.
const leakCheckWait = 10 * time.Second

// flushWaitMax bounds how long a stopped process may go on writing its trace.
const flushWaitMax = time.Minute

// exitsWhileWriting is exitsWithin(exited, grace), renewed while the trace file at path grows
// (up to flushWaitMax): the recorder flushing a full buffer (256 MiB) on a loaded machine
// outlasted the grace, and the SIGKILL left a trace that could not be read, so the run's
// operations went unanalyzed (xsync's resize test at 3% CPU).
func exitsWhileWriting(exited <-chan struct{}, path string, grace time.Duration) bool {
	size := fileSize(path)
	end := time.Now().Add(flushWaitMax)
	for {
		if exitsWithin(exited, grace) {
			return true
		}
		now := fileSize(path)
		if path == "" || now <= size || time.Now().After(end) {
			return false
		}
		size = now
	}
}

// fileSize is the size of the file at path, -1 when it has none.
func fileSize(path string) int64 {
	if fi, err := os.Stat(path); err == nil {
		return fi.Size()
	}
	return -1
}

// exitsWithin reports whether exited is closed within d.
func exitsWithin(exited <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-exited:
		return true
	case <-t.C:
		return false
	}
}

// raceOptions is the GORACE setting of a test process: the user's options, and no sleep at
// exit. The race runtime otherwise sleeps atexit_sleep_ms (1 s) in every process before it
// exits, which would cap a -race campaign at about one run per second and process. Binaries
// built without -race ignore GORACE.
func raceOptions() string {
	return "GORACE=" + strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0")
}
