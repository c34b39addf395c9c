//go:build linux

package run

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/goweave/goweave/fuzzer/build"
)

// slowBinary builds testdata/slow (stock runtime: its tests write their own progress record).
func slowBinary(t *testing.T) *build.TestBinary {
	t.Helper()
	bins, err := build.Build(context.Background(), build.Options{Dir: "testdata/slow", BinDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(bins) != 1 {
		t.Fatalf("built %d binaries, want 1", len(bins))
	}
	return bins[0]
}

// A run still making progress at its time limit goes on and ends as it ends: by its CPU
// time (TestWorking) or by its progress record (TestRecording, which sleeps between
// operations). Neither is a timeout.
func TestSlowRunFinishes(t *testing.T) {
	b := slowBinary(t)
	for _, test := range []string{"TestWorking", "TestRecording"} {
		t.Run(test, func(t *testing.T) {
			opts := Options{Timeout: time.Second, SlowLimit: time.Hour, Trace: filepath.Join(t.TempDir(), "run.trace")}
			r, err := Test(context.Background(), b, test, opts)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != StatusPass || !r.Slow || r.Progressing || r.Evidence == "" {
				t.Fatalf("status %s, slow %v, progressing %v, evidence %q; want a pass, slow, with its evidence:\n%s",
					r.Status, r.Slow, r.Progressing, r.Evidence, r.Output)
			}
		})
	}
}

// A run that makes no progress is stopped at its time limit, as before (a timeout, not
// slow); so is one still making progress at its cap, flagged Progressing.
func TestStuckOrCappedRunStopped(t *testing.T) {
	b := slowBinary(t)
	for _, c := range []struct {
		test        string
		slowLimit   time.Duration
		progressing bool
	}{
		{"TestStuck", time.Hour, false},
		{"TestWorking", 1500 * time.Millisecond, true},
	} {
		t.Run(c.test, func(t *testing.T) {
			opts := Options{Timeout: time.Second, SlowLimit: c.slowLimit, Trace: filepath.Join(t.TempDir(), "run.trace"),
				Env: []string{"GOWEAVE_TEST_SECONDS=3600"}}
			r, err := Test(context.Background(), b, c.test, opts)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != StatusTimeout || r.Canceled || r.Progressing != c.progressing || r.Slow != c.progressing {
				t.Fatalf("status %s (canceled %v), slow %v, progressing %v (%s); want a timeout, progressing %v",
					r.Status, r.Canceled, r.Slow, r.Progressing, r.Evidence, c.progressing)
			}
		})
	}
}

func TestProgressedEvidence(t *testing.T) {
	at := time.Now()
	idle := progressSample{at: at, cpu: time.Second}
	later := func(cpu time.Duration) progressSample { return progressSample{at: at.Add(time.Second), cpu: cpu} }
	if why := progressed(idle, later(time.Second+10*time.Millisecond)); why != "" {
		t.Errorf("one tick of CPU in a second: %q, want no progress", why)
	}
	if why := progressed(idle, later(time.Second+500*time.Millisecond)); why != "50% CPU" {
		t.Errorf("half a second of CPU: %q, want 50%% CPU", why)
	}
	if why := progressed(progressSample{cpu: -1}, progressSample{cpu: -1}); why != "" {
		t.Errorf("nothing known: %q, want no progress", why)
	}
	rec := later(time.Second)
	rec.haveRec, rec.rec.Flags = true, 2
	old := idle
	old.haveRec = true
	if why := progressed(old, rec); why != "goroutines running" {
		t.Errorf("runnable flag: %q", why)
	}
	pg, ticks, ok := parseStat([]byte("123 (a b) c) S 1 77 77 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 1"))
	if !ok || pg != 77 || ticks != 300 {
		t.Errorf("parseStat: %d %d %v, want 77 300 true", pg, ticks, ok)
	}
}

// A process still writing its trace after the time limit's SIGQUIT (a full buffer's flush
// on a loaded machine) is let finish while the file grows, though that outlasts the grace:
// killed at the grace, its trace was cut and could not be read.
func TestStoppedRunFinishesItsTrace(t *testing.T) {
	b := slowBinary(t)
	path := filepath.Join(t.TempDir(), "run.trace")
	opts := Options{Timeout: time.Second, Grace: 2 * time.Second, SlowLimit: time.Hour, Trace: path}
	r, err := Test(context.Background(), b, "TestFlushing", opts)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() != 10*1024 || r.Signal != "" {
		t.Fatalf("trace of %d bytes, signal %q; want 10240 bytes written and no kill:\n%s", fi.Size(), r.Signal, r.Output)
	}
}
