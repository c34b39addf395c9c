package runtimepatch

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Schedule-control benchmarks: the wall time of a replay of a small program
// against its free run, and the cost per operation of following an order
// (every operation of a ping-pong admitted in the recorded order) against
// recording it freely. Figures are medians over b.N child processes.

// childWall runs test name of the replay binary (recording on) and returns
// the process's wall time.
func childWall(b *testing.B, name string, env ...string) time.Duration {
	b.Helper()
	cmd := binCommand(context.Background(), buildReplay(b), "-test.run=^"+name+"$", "-test.timeout=0", "-test.count=1")
	cmd.Env = append(cmd.Environ(), EnvTrace+"="+filepath.Join(b.TempDir(), "t.gwt"), EnvModule+"="+testdataDir(b))
	cmd.Env = append(cmd.Env, env...)
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%s: %v\n%s", name, err, out)
	}
	return time.Since(start)
}

func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}

// benchReplay records test once, then runs it free and under the replay
// schedule of that recording b.N times each, alternating.
func benchReplay(b *testing.B, test string) (free, replay time.Duration, ops int) {
	rec := record(b, buildReplay(b), test, nil)
	if rec.err != nil {
		b.Fatalf("recording %s: %v\n%s", test, rec.err, rec.output)
	}
	s := replaySchedule(b, rec.tr, 2000)
	env, _ := writeSchedule(b, s.String())
	// The last op may be left when the test returns first (a receive
	// that completed after the close that ended the recorded run).
	if r := record(b, buildReplay(b), test, nil, env); metaInt(r, "schedule.diverged") != 0 || metaInt(r, "schedule.admitted") < len(s.ops)-1 {
		b.Fatalf("the replay of %s admitted %d of %d ops (diverged at %d)", test, metaInt(r, "schedule.admitted"), len(s.ops), metaInt(r, "schedule.diverged"))
	}
	var frees, replays []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		frees = append(frees, childWall(b, test))
		replays = append(replays, childWall(b, test, env))
	}
	return median(frees), median(replays), len(s.ops)
}

// BenchmarkScheduleReplayWall: median wall time of a replay of
// TestContended (4 goroutines, ~65 ordered operations) and of its free run.
func BenchmarkScheduleReplayWall(b *testing.B) {
	free, replay, ops := benchReplay(b, "TestContended")
	b.ReportMetric(float64(free)/1e6, "free-ms/run")
	b.ReportMetric(float64(replay)/1e6, "replay-ms/run")
	b.ReportMetric(float64(ops), "ordered-ops")
}

// BenchmarkScheduleOrderOverhead: extra wall time per operation when every
// operation of TestPingPong (8000 channel operations between two
// goroutines) is admitted in the recorded order.
func BenchmarkScheduleOrderOverhead(b *testing.B) {
	free, replay, ops := benchReplay(b, "TestPingPong")
	b.ReportMetric(float64(free)/1e6, "free-ms/run")
	b.ReportMetric(float64(replay)/1e6, "ordered-ms/run")
	b.ReportMetric(float64(ops), "ordered-ops")
	b.ReportMetric(float64(replay-free)/float64(ops), "ns/ordered-op")
}
