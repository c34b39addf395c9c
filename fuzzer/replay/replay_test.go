package replay

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer/campaign"
	"github.com/goweave/goweave/fuzzer/run"
)

func TestReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes an example")
	}
	// testdata/leak leaks in every run: the test waits for its senders to block.
	cfg := campaign.Config{Dir: "testdata/leak", Strategy: "record", RunsPerTest: 1, OutDir: t.TempDir(), RunTimeout: 10 * time.Second}
	rep, err := campaign.Fuzz(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var leak *campaign.Finding
	for i, f := range rep.Findings {
		if f.Kind == "leak-chan" {
			leak = &rep.Findings[i]
		}
	}
	if leak == nil {
		t.Fatalf("no leak-chan among %+v", rep.Findings)
	}

	cfg.RunsPerTest, cfg.Parallel = 3, 1
	res, err := Replay(context.Background(), cfg, *leak)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Reproduced || res.Runs != 1 || res.Finding == nil || res.Finding.Confidence != analysis.Confirmed {
		t.Fatalf("replay of a leak that happens in every run: %+v", res)
	}
	if res.Run == nil || res.Run.Status != run.StatusPass {
		t.Errorf("replayed run %+v", res.Run)
	}
	blocked := strings.Join(res.Blocked, "\n")
	if !strings.Contains(blocked, "[chan send] at leak_test.go:18") {
		t.Errorf("blocked goroutines:\n%s\nwant the leaked senders at leak_test.go:18", blocked)
	}

	// A bug that cannot happen is tried for the whole budget and not reproduced.
	never := *leak
	never.Positions = []analysis.Position{{Role: "send", File: leak.Positions[0].File, Line: 1}}
	res, err = Replay(context.Background(), cfg, never)
	if err != nil {
		t.Fatal(err)
	}
	if res.Reproduced || res.Runs != 3 || res.Finding != nil {
		t.Errorf("replay of an impossible bug: %+v", res)
	}
}

func TestReplayRejectsIncompleteFinding(t *testing.T) {
	if _, err := Replay(context.Background(), campaign.Config{OutDir: t.TempDir()}, campaign.Finding{}); err == nil {
		t.Error("replay of an empty finding accepted")
	}
}
