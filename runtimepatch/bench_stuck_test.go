package runtimepatch

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// BenchmarkStuckArmed measures what the stuck check (armed with the time limit, as in
// every `goweave fuzz` run) adds to recorded operations: testdata/bench's programs
// recording with the time limit armed and not, built without and with -race, best of
// b.N child runs of each. LockUnlock, PingPong and Select2 take the untagged paths;
// LockedSend and NestedLock the tagged ones (zz_goweave_handoff.go).
//
//	cd runtimepatch && go test -run '^$' -bench '^BenchmarkStuckArmed$' -benchtime=5x .

var (
	stuckBenchOnce [2]sync.Once
	stuckBenchBin  [2]string
	stuckBenchErr  [2]error
)

func BenchmarkStuckArmed(b *testing.B) {
	module, err := filepath.Abs("testdata")
	if err != nil {
		b.Fatal(err)
	}
	for _, race := range []bool{false, true} {
		r := 0
		var extra []string
		if race {
			r, extra = 1, []string{"-race"}
		}
		stuckBenchOnce[r].Do(func() {
			stuckBenchBin[r], stuckBenchErr[r] = buildTestdata(b, "bench", filepath.Join(workDir, fmt.Sprintf("bench-stuck%d.test", r)), extra...)
		})
		if stuckBenchErr[r] != nil {
			b.Fatal(stuckBenchErr[r])
		}
		bin := stuckBenchBin[r]
		for _, c := range []struct {
			name  string
			iters int
		}{{"LockUnlock", 500_000}, {"PingPong", 100_000}, {"Select2", 300_000}, {"LockedSend", 200_000}, {"NestedLock", 200_000}} {
			b.Run(fmt.Sprintf("%s/race=%v", c.name, race), func(b *testing.B) {
				trace := filepath.Join(b.TempDir(), "bench.gwt")
				env := []string{EnvTrace + "=" + trace, EnvModule + "=" + module}
				traced, armed := math.Inf(1), math.Inf(1)
				for i := 0; i < b.N; i++ {
					traced = min(traced, childNsPerOp(b, bin, "Benchmark"+c.name, c.iters, env...))
					armed = min(armed, childNsPerOp(b, bin, "Benchmark"+c.name, c.iters, append(env, EnvTimeLimit+"="+strconv.Itoa(TimeLimitSignal))...))
				}
				b.ReportMetric(traced, "traced-ns/op")
				b.ReportMetric(armed, "armed-ns/op")
				b.ReportMetric(armed-traced, "armed-extra-ns/op")
			})
		}
	}
}
