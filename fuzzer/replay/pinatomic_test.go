package replay

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/build"
	"github.com/goweave/goweave/fuzzer/campaign"
	"github.com/goweave/goweave/fuzzer/mutate"
	"github.com/goweave/goweave/fuzzer/run"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// lineOf returns the line of file holding marker (testdata's "// @name" comments).
func lineOf(t *testing.T, file, marker string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, marker) {
			return i + 1
		}
	}
	t.Fatalf("%s: no line with %q", file, marker)
	return 0
}

// failed reports whether a run of testdata/pinatomic's TestMailbox lost its message.
func failed(ar *campaign.AnalyzedRun) bool {
	return ar.Status == run.StatusFail && strings.Contains(ar.Output, "want the one message")
}

// A bug whose window lies between two atomics of one goroutine (the mailbox reader's Swap,
// then its Load of closed), with two atomics of another goroutine in it (the Put's Store, the
// Close's Store), is replayed in every attempt by the recipes of its failing run: the free
// run's (mutate.Replay) and the steered run's (mutate.PinRun), whose orders name the
// atomics. Without them (the same replay with the atomics left out of its order, as before)
// the reader runs when the scheduler lets it and the message is usually delivered.
// mailboxFailure builds testdata/pinatomic and forces its bug once: the reader's Swap finds
// the slot empty, the test goroutine puts and closes, then the reader finds the mailbox
// closed. It returns the binary and the failing run.
func mailboxFailure(t *testing.T) (*build.TestBinary, *campaign.AnalyzedRun) {
	t.Helper()
	bin := buildForReplay(t, "testdata/pinatomic")
	file, _ := filepath.Abs("testdata/pinatomic/mailbox_test.go")
	at := func(marker string) schedule.Pos { return schedule.Pos{File: file, Line: lineOf(t, file, marker)} }
	poke := at("case m.wake <-")
	forced := &schedule.Schedule{Order: &schedule.Order{Window: 2 * time.Second, Ops: []schedule.OpID{
		{G: "1.1", Kind: trace.KindAtomicRMW, Pos: at("// @swap"), N: 1},
		{G: "1", Kind: trace.KindAtomicStore, Pos: at("// @store"), N: 1},
		{G: "1", Kind: trace.KindSelect, Pos: poke, N: 1},
		{G: "1", Kind: trace.KindAtomicStore, Pos: at("// @close"), N: 1},
		{G: "1", Kind: trace.KindSelect, Pos: poke, N: 2},
		{G: "1.1", Kind: trace.KindAtomicLoad, Pos: at("// @load"), N: 1},
	}}}
	failing := runUnder(t, bin, "TestMailbox", forced)
	if o := schedule.ReadOutcome(failing.Recorded.Meta); !failed(failing) || o.Diverged != 0 || o.Admitted != len(forced.Order.Ops) {
		t.Fatalf("forced run: status %s, outcome %+v, want the message lost with every op admitted\n%s", failing.Status, o, failing.Output)
	}
	return bin, failing
}

func TestReplayPinsAtomics(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test program")
	}
	const attempts = 10
	bin, failing := mailboxFailure(t)
	r := func() *mutate.Run { return &mutate.Run{Trace: failing.Recorded, SelectPartners: map[int][]int{}} }

	free := mutate.Replay(r(), 0)
	steered := &schedule.Schedule{}
	if !mutate.PinRun(steered, r()) {
		t.Fatal("PinRun left the schedule unchanged")
	}
	unpinned := mutate.Replay(r(), 0) // the replay of before: no atomics in its order
	unpinned.Order.Ops = func() (ops []schedule.OpID) {
		for _, op := range unpinned.Order.Ops {
			if !schedule.Atomic(op.Kind) {
				ops = append(ops, op)
			}
		}
		return ops
	}()
	for _, s := range []*schedule.Schedule{free, steered} {
		if !s.Order.PinsAtomics() {
			t.Fatalf("recipe %+v pins no atomic", s.Order)
		}
	}

	count := func(s *schedule.Schedule) (k int) {
		for range attempts {
			if failed(runUnder(t, bin, "TestMailbox", s)) {
				k++
			}
		}
		return k
	}
	kFree, kSteered, kUnpinned := count(free), count(steered), count(unpinned)
	t.Logf("message lost in %d of %d replays with the free run's recipe, %d with the steered run's, %d with atomics left out of the order", kFree, attempts, kSteered, kUnpinned)
	if kFree != attempts || kSteered != attempts {
		t.Errorf("the recipes that pin atomics reproduced the bug in %d and %d of %d attempts, want every one", kFree, kSteered, attempts)
	}
}

// The language server's "Replay this bug" (Replay) runs the finding's recipe, which pins the
// atomics, not the schedule of the steered run that found it (f.Replay), which pins nothing
// here: the bug happens in every attempt.
func TestReplayRunsTheRecipe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test program")
	}
	_, failing := mailboxFailure(t)
	pinned := &schedule.Schedule{}
	if !mutate.PinRun(pinned, &mutate.Run{Trace: failing.Recorded, SelectPartners: map[int][]int{}}) {
		t.Fatal("PinRun left the schedule unchanged")
	}
	text, err := schedule.Marshal(pinned)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file, _ := filepath.Abs("testdata/pinatomic/mailbox_test.go")
	f := campaign.Finding{Finding: analysis.Finding{
		Kind: "flaky-failure", Confidence: analysis.Actual, Package: "pinatomic", Test: "TestMailbox", Fingerprint: "outcome:mailbox",
		Positions: []analysis.Position{{Role: "failure", File: file, Line: lineOf(t, file, "t.Fatalf")}},
	}}
	f.Replay = filepath.Join(dir, "run.schedule") // the steered run's own schedule: free
	if err := os.WriteFile(f.Replay, []byte("goweave-schedule 1\nend\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.Recipe = filepath.Join(dir, "recipe.json")
	data, err := json.Marshal(campaign.Recipe{Version: 1, Finding: f, Package: "pinatomic", Dir: filepath.Dir(file), Module: filepath.Dir(file), Test: "TestMailbox", Schedule: string(text)})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.Recipe, data, 0o644); err != nil {
		t.Fatal(err)
	}
	// A replay follows its order only as long as each op arrives within the order's window;
	// on a machine so loaded that a goroutine waits longer for a CPU, the runtime abandons
	// the order and says so (schedule.diverged), and that attempt proves nothing either way.
	// A replay that kept to its order must lose the message; most attempts must keep to it.
	reproduced := 0
	for k := range 5 {
		res, err := Replay(context.Background(), campaign.Config{Dir: "testdata/pinatomic", RunsPerTest: 1, Parallel: 1, OutDir: t.TempDir()}, f)
		if err != nil {
			t.Fatal(err)
		}
		if res.Run != nil && res.Run.Status == run.StatusFail && strings.Contains(res.Run.Output, "want the one message") {
			reproduced++
			continue
		}
		if res.Run != nil && res.Run.Trace != "" {
			if tr, err := trace.ReadFile(res.Run.Trace); err == nil {
				if o := schedule.ReadOutcome(tr.Meta); !o.Followed() {
					t.Logf("attempt %d: the runtime abandoned the order at op %d of its window (load): %s", k+1, o.Diverged, res.Run.Status)
					continue
				}
			}
		}
		t.Fatalf("attempt %d: %+v, want the message lost", k+1, res.Run)
	}
	if reproduced < 3 {
		t.Errorf("the message was lost in %d of 5 replays, the others abandoned their order; want most to keep to it", reproduced)
	}
}
