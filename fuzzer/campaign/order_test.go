package campaign

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/goweave/goweave/fuzzer/build"
)

// startOrder is the order in which c's nextJob starts its tests' first runs, one at a time.
func startOrder(c *campaign) []string {
	var names []string
	for {
		j, ok := c.nextJob(time.Now())
		if !ok {
			return names
		}
		names = append(names, j.test.name)
		j.test.inflight, j.test.done = 0, true
	}
}

// Tests an earlier campaign timed start longest first; the others count as a share
// (-time) and keep name order among the tests of a share, so a suite of fast tests starts
// as before. The times are read from any saved state of the test, another build's too.
func TestSlowTestsStartFirst(t *testing.T) {
	out := t.TempDir()
	bin := &build.TestBinary{Package: "p"}
	saved := map[string]float64{"TestB": 0.5, "TestC": 30, "TestD": 10, "TestE": 1}
	newCampaign := func(cfg Config) *campaign {
		cfg.OutDir, cfg.Parallel, cfg.Strategy = out, 1, "record"
		c := &campaign{cfg: cfg}
		for _, name := range []string{"TestA", "TestB", "TestC", "TestD", "TestE"} {
			c.tests = append(c.tests, &testState{bin: bin, name: name, statuses: map[string]int{}, strategy: recordStrategy{}})
		}
		return c
	}
	write := func(c *campaign) {
		for _, ts := range c.tests {
			if s, ok := saved[ts.name]; ok {
				data, _ := json.Marshal(map[string]any{"version": 1, "goweave": "another build", "package": "p", "test": ts.name, "firstRun": s})
				path := c.statePath(ts)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	c := newCampaign(Config{TimePerTest: time.Second})
	c.readHints()
	c.orderBySavedTimes()
	if got := startOrder(c); !slices.Equal(got, []string{"TestA", "TestB", "TestC", "TestD", "TestE"}) {
		t.Fatalf("nothing saved: started %v, want name order", got)
	}
	write(c)
	c = newCampaign(Config{TimePerTest: time.Second})
	c.readHints()
	c.orderBySavedTimes()
	if got := startOrder(c); !slices.Equal(got, []string{"TestC", "TestD", "TestA", "TestB", "TestE"}) {
		t.Errorf("-time 1s: started %v, want TestC (30 s), TestD (10 s), then the tests of a share in name order", got)
	}
	// Without a time budget a test not timed counts as the median of those timed (of four,
	// the upper one: 10 s, tied with TestD).
	c = newCampaign(Config{RunsPerTest: 5})
	c.readHints()
	c.orderBySavedTimes()
	if got := startOrder(c); !slices.Equal(got, []string{"TestC", "TestA", "TestD", "TestE", "TestB"}) {
		t.Errorf("-runs 5: started %v, want longest first, TestA as the median", got)
	}
}

// The loans cannot pay every slow test: the tests they can pay, least need first, start
// first (longest first among them), the one left over after them. Longest first alone
// started TestC, whose 29 s past its share would drain the 5 s of loans, before the three
// others that need 2 s or nothing.
func TestLoansChooseWhoStartsFirst(t *testing.T) {
	out := t.TempDir()
	bin := &build.TestBinary{Package: "p"}
	c := &campaign{cfg: Config{OutDir: out, Strategy: "record", TimePerTest: time.Second, Parallel: 1}} // 5 s to lend
	for _, name := range []string{"TestA", "TestB", "TestC", "TestD", "TestE"} {
		c.tests = append(c.tests, &testState{bin: bin, name: name, statuses: map[string]int{}, strategy: recordStrategy{}})
	}
	saved := map[string][2]float64{"TestB": {0.5, 0.5}, "TestC": {30, 30}, "TestD": {4, 3}, "TestE": {3, 3}} // firstRun, firstExit
	for _, ts := range c.tests {
		if s, ok := saved[ts.name]; ok {
			data, _ := json.Marshal(map[string]any{"package": "p", "test": ts.name, "firstRun": s[0], "firstExit": s[1]})
			path := c.statePath(ts)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	c.readHints()
	c.orderBySavedTimes()
	if got := startOrder(c); !slices.Equal(got, []string{"TestD", "TestE", "TestA", "TestB", "TestC"}) {
		t.Errorf("started %v, want TestD and TestE (2 s of loans each), the tests of a share, then TestC", got)
	}
}

// A campaign saves each test's first-run time and the next one starts the slow test first,
// under -fresh too: in name order TestFast would start first.
func TestSavedTimesOrderTheNextCampaign(t *testing.T) {
	cfg := budgetConfig(t, "^(TestSlowA|TestFast)$", 0)
	cfg.RunsPerTest, cfg.Parallel, cfg.Fresh = 1, 1, true
	started := func() []string {
		var names []string
		_, err := Fuzz(context.Background(), cfg, func(p Progress) {
			if p.Started {
				names = append(names, p.Test)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return names
	}
	if got := started(); !slices.Equal(got, []string{"TestFast", "TestSlowA"}) {
		t.Fatalf("first campaign started %v, want name order", got)
	}
	ts := &testState{bin: &build.TestBinary{Package: "slowshare"}, name: "TestSlowA"}
	c := &campaign{cfg: cfg, tests: []*testState{ts}}
	if c.readHints(); ts.savedFirstRun < 1500*time.Millisecond {
		t.Fatalf("saved first run of TestSlowA: %s, want at least its 1.5 s", ts.savedFirstRun)
	}
	if got := started(); !slices.Equal(got, []string{"TestSlowA", "TestFast"}) {
		t.Errorf("second campaign started %v, want the slow test first", got)
	}
}
