package runtimepatch

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"
)

// The recording benchmarks run testdata/bench as child processes, built
// without the overlay (stock), with it but recording off (off), and with it
// recording (on), in the same run, and report ns/op of each plus the cost per
// recorded event, from the best of b.N runs of each variant (the machine is
// shared). Iteration counts are fixed so the traces stay below the event
// buffer's capacity.

var (
	benchOnce   sync.Once
	benchBins   [2]string // stock, overlay
	benchBinErr error
)

func benchBinaries(b *testing.B) (stock, overlay string) {
	benchOnce.Do(func() {
		dir := filepath.Join("testdata", "bench")
		ov, err := Prepare(context.Background(), dir)
		if err != nil {
			benchBinErr = err
			return
		}
		for i, flags := range [][]string{nil, {"-overlay=" + ov.Path}} {
			out := filepath.Join(workDir, fmt.Sprintf("bench%d.test", i))
			args := append([]string{"test", "-c", "-o", out}, flags...)
			cmd := ov.Command(context.Background(), append(args, ".")...)
			cmd.Dir = dir
			cmd.Env = append(cmd.Env, "GOFLAGS=", "GOWORK=off")
			if msg, err := cmd.CombinedOutput(); err != nil {
				benchBinErr = fmt.Errorf("building the benchmark program: %v\n%s", err, msg)
				return
			}
			benchBins[i] = out
		}
	})
	if benchBinErr != nil {
		b.Fatal(benchBinErr)
	}
	return benchBins[0], benchBins[1]
}

var nsPerOp = regexp.MustCompile(`\s([0-9.]+) ns/op`)

// childNsPerOp runs one benchmark of bin and returns its ns/op.
func childNsPerOp(b *testing.B, bin, bench string, iters int, env ...string) float64 {
	cmd := binCommand(context.Background(), bin, "-test.run=^$", "-test.bench=^"+bench+"$", fmt.Sprintf("-test.benchtime=%dx", iters), "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("%s: %v\n%s", bench, err, out)
	}
	m := nsPerOp.FindSubmatch(out)
	if m == nil {
		b.Fatalf("%s: no ns/op in\n%s", bench, out)
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		b.Fatal(err)
	}
	return v
}

func benchRecording(b *testing.B, bench string, iters int, eventsPerOp float64) {
	stock, overlay := benchBinaries(b)
	module, err := filepath.Abs("testdata")
	if err != nil {
		b.Fatal(err)
	}
	tracePath := filepath.Join(b.TempDir(), "bench.gwt")
	// A schedule that steers nothing these benchmarks do: every recorded
	// operation takes the schedule's slow path and is let through.
	schedPath := filepath.Join(b.TempDir(), "unrelated.sched")
	unrelated := "goweave-schedule 1\nfile 1 /nowhere/x.go\ndelay 1.9 10 1:1 1 1 1.9 10 1:2 1\nend\n"
	if err := os.WriteFile(schedPath, []byte(unrelated), 0o644); err != nil {
		b.Fatal(err)
	}
	// The machine is shared: each variant's best run is the least disturbed.
	plain, off, on, sched, armed := math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		plain = min(plain, childNsPerOp(b, stock, bench, iters))
		off = min(off, childNsPerOp(b, overlay, bench, iters))
		on = min(on, childNsPerOp(b, overlay, bench, iters, EnvTrace+"="+tracePath, EnvModule+"="+module))
		sched = min(sched, childNsPerOp(b, overlay, bench, iters, EnvTrace+"="+tracePath, EnvModule+"="+module, EnvSchedule+"="+schedPath))
		// as goweave's runs are: the stuck check armed, its bookkeeping (lock
		// holders, read-lock slots, go statements) on every lock operation
		armed = min(armed, childNsPerOp(b, overlay, bench, iters, EnvTrace+"="+tracePath, EnvModule+"="+module, EnvTimeLimit+"="+strconv.Itoa(TimeLimitSignal)))
	}
	b.ReportMetric(plain, "stock-ns/op")
	b.ReportMetric(off, "off-ns/op")
	b.ReportMetric(on, "traced-ns/op")
	b.ReportMetric(sched, "traced+unrelated-schedule-ns/op")
	b.ReportMetric(armed, "traced+stuck-check-ns/op")
	b.ReportMetric(on/plain, "traced/stock")
	b.ReportMetric((on-plain)/eventsPerOp, "ns/event")
}

func BenchmarkRecordPingPong(b *testing.B)   { benchRecording(b, "BenchmarkPingPong", 100_000, 4) }
func BenchmarkRecordLockUnlock(b *testing.B) { benchRecording(b, "BenchmarkLockUnlock", 500_000, 2) }
func BenchmarkRecordSelect2(b *testing.B)    { benchRecording(b, "BenchmarkSelect2", 300_000, 2) }
func BenchmarkRecordTypedAtomicAdd(b *testing.B) {
	benchRecording(b, "BenchmarkTypedAtomicAdd", 500_000, 1)
}
func BenchmarkRecordMapLoad(b *testing.B)    { benchRecording(b, "BenchmarkMapLoad", 500_000, 1) }
func BenchmarkRecordTimerFire(b *testing.B)  { benchRecording(b, "BenchmarkTimerFire", 200_000, 2) }
func BenchmarkRecordTimerReset(b *testing.B) { benchRecording(b, "BenchmarkTimerReset", 200_000, 1) }
func BenchmarkRecordSelect4Ready(b *testing.B) {
	benchRecording(b, "BenchmarkSelect4Ready", 300_000, 2)
}
func BenchmarkRecordRLockRUnlock(b *testing.B) {
	benchRecording(b, "BenchmarkRLockRUnlock", 500_000, 2)
}
func BenchmarkRecordGoUnderLock(b *testing.B) { benchRecording(b, "BenchmarkGoUnderLock", 100_000, 7) }
func BenchmarkRecordTickerNew(b *testing.B)   { benchRecording(b, "BenchmarkTickerNew", 200_000, 2) }

// BenchmarkOverlayBuildCold measures `go test -c` with an overlay the build
// cache has never seen (the standard library is recompiled): each iteration
// generates an overlay whose runtime differs by a comment.
func BenchmarkOverlayBuildCold(b *testing.B) {
	tc, err := FindToolchain(context.Background(), filepath.Join("testdata", "bench"))
	if err != nil {
		b.Fatal(err)
	}
	var cpu time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		ov, err := prepareFor(b.TempDir(), tc)
		if err != nil {
			b.Fatal(err)
		}
		added := filepath.Join(filepath.Dir(ov.Path), "runtime", "zz_goweave_record.go")
		f, err := os.OpenFile(added, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(f, "\n// cold build %d\n", time.Now().UnixNano())
		f.Close()
		b.StartTimer()
		cpu += buildWith(b, ov)
	}
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkOverlayBuildWarm measures `go test -c` with an overlay already in
// the build cache, including Prepare finding the cached overlay.
func BenchmarkOverlayBuildWarm(b *testing.B) {
	dir := filepath.Join("testdata", "bench")
	ov, err := Prepare(context.Background(), dir)
	if err != nil {
		b.Fatal(err)
	}
	buildWith(b, ov)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ov, err := Prepare(context.Background(), dir)
		if err != nil {
			b.Fatal(err)
		}
		buildWith(b, ov)
	}
}

// buildWith builds testdata/bench with the overlay and returns the CPU time
// the go command and the compilers it ran used (on a shared machine a
// steadier figure than the wall time).
func buildWith(b *testing.B, ov *Overlay) time.Duration {
	cmd := ov.Command(context.Background(), "test", "-c", "-o", filepath.Join(b.TempDir(), "bench.test"), "-overlay="+ov.Path, ".")
	cmd.Dir = filepath.Join("testdata", "bench")
	cmd.Env = append(cmd.Env, "GOFLAGS=", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%v\n%s", err, out)
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}
