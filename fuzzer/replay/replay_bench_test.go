package replay

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/goweave/goweave/fuzzer/campaign"
)

// BenchmarkReplayRecipe measures `goweave replay` of a corpus kernel's confirmed finding:
// source check, rebuild (go build cache warm), hash, one run under the schedule, trace
// analysis. Reports the median wall time per replay.
//
//	go test -run XXX -bench ReplayRecipe -benchtime 20x ./fuzzer/replay
func BenchmarkReplayRecipe(b *testing.B) {
	for _, kernel := range []string{"send_on_closed_predicted", "cyclic_deadlock_abba"} {
		b.Run(kernel, func(b *testing.B) {
			corpus, _ := filepath.Abs(filepath.Join("..", "..", "shared", "corpus"))
			out := b.TempDir()
			rep, err := campaign.Fuzz(context.Background(), campaign.Config{Dir: filepath.Join(corpus, kernel), RunsPerTest: 1, Strategy: "record", OutDir: out}, nil)
			if err != nil || len(rep.Findings) == 0 {
				b.Skipf("no finding to replay (corpus at %s?): %v", corpus, err)
			}
			rec, err := campaign.LoadRecipe(rep.Findings[0].Recipe)
			if err != nil {
				b.Fatal(err)
			}
			var times []time.Duration
			for b.Loop() {
				start := time.Now()
				res, err := ReplayRecipe(context.Background(), rec, Options{Runs: 1, OutDir: b.TempDir()})
				if err != nil || !res.Reproduced {
					b.Fatalf("replay: %+v, %v", res, err)
				}
				times = append(times, time.Since(start))
			}
			slices.Sort(times)
			b.ReportMetric(times[len(times)/2].Seconds(), "median-s")
		})
	}
}
