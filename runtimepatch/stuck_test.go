package runtimepatch

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace"
)

// A recording process armed with EnvTimeLimit ends itself as soon as its state shows it
// stuck (zz_goweave_stuck.go): every goroutine blocked with no timer (stuck=global), a lock
// cycle whatever else runs (stuck=lockcycle), or, Go 1.26 and later, the test goroutine
// proven leaked by the GC after a quiet window (stuck=leaked). testdata/stuck holds the
// programs; its TestNotStuck* wait in ways that must never be taken for stuck.

var (
	stuckOnce, stuckRaceOnce sync.Once
	stuckBin, stuckRaceBin   string
	stuckErr, stuckRaceErr   error
)

func buildStuck(t *testing.T, race bool) string {
	t.Helper()
	if race {
		skipRaceEmulated(t)
		stuckRaceOnce.Do(func() {
			stuckRaceBin, stuckRaceErr = buildTestdata(t, "stuck", filepath.Join(workDir, "stuck-race.test"), "-race")
		})
		if stuckRaceErr != nil {
			failBuild(t, stuckRaceErr)
		}
		return stuckRaceBin
	}
	stuckOnce.Do(func() { stuckBin, stuckErr = buildTestdata(t, "stuck", filepath.Join(workDir, "stuck.test")) })
	if stuckErr != nil {
		failBuild(t, stuckErr)
	}
	return stuckBin
}

// recordArmed runs test name with the time limit (and so the stuck check) armed, and a
// progress file.
func recordArmed(t *testing.T, bin, name string, env ...string) (result, string) {
	t.Helper()
	progress := filepath.Join(t.TempDir(), "progress")
	env = append(env, EnvTimeLimit+"="+strconv.Itoa(TimeLimitSignal), EnvProgress+"="+progress)
	return record(t, bin, name, nil, env...), progress
}

// wantStuck checks that the run ended itself as stuck in kind, with SIGQUIT and the fatal
// error line the fuzzer classifies as a deadlock, soon after its last recorded event.
func wantStuck(t *testing.T, r result, kind string) {
	t.Helper()
	m := r.tr.Meta
	if m["stuck"] != kind || m["exit"] != "signal" || m["signal"] != strconv.Itoa(int(syscall.SIGQUIT)) {
		t.Fatalf("META stuck=%q exit=%q signal=%q; want stuck=%s, the process ending itself with SIGQUIT\n%s", m["stuck"], m["exit"], m["signal"], kind, r.output)
	}
	if !strings.Contains(r.output, "SIGQUIT") {
		t.Errorf("no goroutine dump in the output:\n%s", r.output)
	}
	if m["timelimit"] != "" {
		t.Errorf("META timelimit=%q: the run was not stopped at its time limit", m["timelimit"])
	}
	if !strings.Contains(r.output, "fatal error: goweave: deadlock: ") {
		t.Errorf("no 'fatal error: goweave: deadlock' line:\n%s", r.output)
	}
	// The trace's own record of at most how long after the stuck state formed the run ended.
	w, err := strconv.ParseUint(m["stuck.withinns"], 10, 64)
	if err != nil || w >= 1e9 {
		t.Errorf("META stuck.withinns=%q: want under 1 s after the stuck state formed", m["stuck.withinns"])
	}
	t.Logf("stuck=%s found %.0f ms after the last recorded event, within %.0f ms of forming", kind, atof(m["stuck.quietns"])/1e6, float64(w)/1e6)
}

func atof(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// findings analyzes the trace and returns its findings of the given kind.
func findings(t *testing.T, tr *trace.Trace, kind string) []analysis.Finding {
	t.Helper()
	var out []analysis.Finding
	for _, f := range analysis.Analyze(tr).Findings {
		if f.Kind == kind {
			out = append(out, f)
		}
	}
	return out
}

// positions returns the file:line of every operation of the findings.
func positions(fs []analysis.Finding) map[string]bool {
	m := map[string]bool{}
	for _, f := range fs {
		for _, p := range f.Positions {
			m[p.File+":"+strconv.Itoa(p.Line)] = true
		}
	}
	return m
}

func TestStuckGlobalRace(t *testing.T) {
	r, progress := recordArmed(t, buildStuck(t, true), "TestStuckChanCycle")
	wantStuck(t, r, "global")
	marks := markersIn(t, "stuck")
	got := positions(findings(t, r.tr, "deadlock"))
	for _, name := range []string{"cycle.a", "cycle.b", "cycle.c", "cycle.wait"} {
		if !got[marks[name]] {
			t.Errorf("no deadlock finding at @%s (%s); found at %v", name, marks[name], got)
		}
	}
	p, err := ReadProgress(progress)
	if err != nil {
		t.Fatal(err)
	}
	stamp := r.tr.Meta["stamp"]
	if p.Ticks < 2 || strconv.FormatUint(p.Events, 10) != stamp || p.Flags != 0 {
		t.Errorf("progress %+v; want ≥2 ticks, events = the trace's last stamp %s, no flags (nothing could run)", p, stamp)
	}
}

// An AB-BA cycle whose goroutines tell each other they hold their first mutex, through an
// unbuffered channel (TestStuckLockCycle) or buffered ones (TestStuckLockCycleQueued): the
// messages sent with a lock held (possible hand-offs) were received by the cycle's own
// goroutines, so the cycle is still certain.
func TestStuckLockCycle(t *testing.T) {
	for _, tc := range []struct{ name, ab, ba string }{
		{"TestStuckLockCycle", "lock.ab", "lock.ba"},
		{"TestStuckLockCycleQueued", "queued.ab", "queued.ba"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := recordArmed(t, buildStuck(t, false), tc.name)
			wantStuck(t, r, "lockcycle")
			if n := len(strings.Split(r.tr.Meta["stuck.goroutines"], ",")); n != 2 {
				t.Errorf("META stuck.goroutines=%q, want the two goroutines of the cycle", r.tr.Meta["stuck.goroutines"])
			}
			marks := markersIn(t, "stuck")
			fs := findings(t, r.tr, "deadlock")
			got := positions(fs)
			for _, name := range []string{tc.ab, tc.ba} {
				if !got[marks[name]] {
					t.Errorf("no deadlock finding at @%s (%s); found at %v", name, marks[name], got)
				}
			}
			for _, f := range fs {
				if !strings.Contains(f.Message, "lock cycle") || strings.Contains(f.Message, "time limit") {
					t.Errorf("message %q: want the lock cycle, not a time limit", f.Message)
				}
			}
		})
	}
}

// A lock cycle through an RWMutex's read side (an RLock queued behind a pending
// writer that waits for a reader of the cycle), beside a goroutine that keeps working:
// the four goroutines are the cycle, and the analysis reports it as one deadlock.
func TestStuckRWLockCycle(t *testing.T) {
	r, _ := recordArmed(t, buildStuck(t, false), "TestStuckRWLockCycle")
	wantStuck(t, r, "lockcycle")
	if n := len(strings.Split(r.tr.Meta["stuck.goroutines"], ",")); n != 4 {
		t.Errorf("META stuck.goroutines=%q, want the four goroutines of the cycle", r.tr.Meta["stuck.goroutines"])
	}
	marks := markersIn(t, "stuck")
	fs := findings(t, r.tr, "deadlock")
	got := positions(fs)
	for _, name := range []string{"rw.apply", "rw.refresh", "rw.prune", "rw.flush"} {
		if !got[marks[name]] {
			t.Errorf("no deadlock finding at @%s (%s); found at %v", name, marks[name], got)
		}
	}
	if len(fs) != 1 {
		t.Errorf("%d deadlock findings, want the cycle as one", len(fs))
	}
}

func TestStuckLeaked(t *testing.T) {
	if !testdataRelease(t).LeakGC {
		t.Skip("no GC leak detection before Go 1.26: no partial check")
	}
	r, _ := recordArmed(t, buildStuck(t, false), "TestStuckWaitGroupLeak")
	wantStuck(t, r, "leaked")
	if r.tr.Meta["leakgc"] != "1" {
		t.Errorf("META leakgc=%q, want 1", r.tr.Meta["leakgc"])
	}
	marks := markersIn(t, "stuck")
	var got []string
	for _, f := range analysis.Analyze(r.tr).Findings {
		for _, p := range f.Positions {
			got = append(got, f.Kind+"@"+p.File+":"+strconv.Itoa(p.Line))
		}
	}
	if !strings.Contains(strings.Join(got, " "), "@"+marks["wg.leak"]) {
		t.Errorf("no finding at the leaked worker @wg.leak (%s): %v", marks["wg.leak"], got)
	}
}

// The partial check does not need the whole run quiet: the test goroutine without an event
// of its own for the window is enough, however busy the rest is.
func TestStuckLeakBesideBusy(t *testing.T) {
	if !testdataRelease(t).LeakGC {
		t.Skip("no GC leak detection before Go 1.26: no partial check")
	}
	r, _ := recordArmed(t, buildStuck(t, false), "TestStuckLeakBesideBusy")
	wantStuck(t, r, "leaked")
	got := positions(findings(t, r.tr, "leak-chan"))
	if !got[markersIn(t, "stuck")["busy.leak"]] {
		t.Errorf("no leak-chan at @busy.leak: %v", got)
	}
}

func TestStuckSelfLock(t *testing.T) {
	if !testdataRelease(t).LeakGC {
		t.Skip("no GC leak detection before Go 1.26: a goroutine waiting for its own mutex waits for the time limit")
	}
	r, _ := recordArmed(t, buildStuck(t, false), "TestStuckSelfLock")
	wantStuck(t, r, "lockcycle")
	if !positions(findings(t, r.tr, "deadlock"))[markersIn(t, "stuck")["self.lock"]] {
		t.Errorf("no deadlock finding at @self.lock\n%s", dump(r.tr))
	}
}

func TestStuckHandoff(t *testing.T) {
	r, _ := recordArmed(t, buildStuck(t, true), "TestStuckHandoff")
	wantStuck(t, r, "global")
}

func TestNotStuck(t *testing.T) {
	bin := buildStuck(t, true)
	for _, name := range []string{"TestNotStuckSleep", "TestNotStuckTimerChan", "TestNotStuckAfterFunc",
		"TestNotStuckPipe", "TestNotStuckSignal", "TestNotStuckSlowWorkers", "TestNotStuckSemaphore", "TestNotStuckRWHandoff", "TestNotStuckSpawnHandoff",
		"TestNotStuckChanHandoff", "TestNotStuckQueuedHandoff", "TestNotStuckCondHandoff"} {
		t.Run(name, func(t *testing.T) {
			r, progress := recordArmed(t, bin, name)
			if m := r.tr.Meta; m["stuck"] != "" || m["exit"] != "exit" || r.err != nil {
				t.Fatalf("META stuck=%q exit=%q, process end %v: want a normal exit\n%s", m["stuck"], m["exit"], r.err, r.output)
			}
			p, err := ReadProgress(progress)
			if err != nil || p.Ticks == 0 {
				t.Errorf("progress %+v, %v: want ticks", p, err)
			}
		})
	}
}

// Disarmed by GOWEAVE_STUCK=0, a stuck run waits for its time limit as before.
func TestStuckDisarmed(t *testing.T) {
	if e := os.Getenv(envEmulator); e != "" {
		t.Skipf("under %s a real-time signal does not reach the program as itself", e)
	}
	bin := buildLeakgc(t)
	r := record(t, bin, "TestTimeLimitHang", syscall.Signal(TimeLimitSignal), EnvTimeLimit+"="+strconv.Itoa(TimeLimitSignal), EnvStuck+"=0")
	if m := r.tr.Meta; m["stuck"] != "" || m["timelimit"] != "1" {
		t.Errorf("META stuck=%q timelimit=%q, want none and 1", m["stuck"], m["timelimit"])
	}
}
