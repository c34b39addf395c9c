package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis/trace"
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
// run's (mutate.Replay) and the steered run's (mutate.PinAtomics), whose orders name the
// atomics. Without them (the same replay with the atomics left out of its order, as before)
// the reader runs when the scheduler lets it and the message is usually delivered.
func TestReplayPinsAtomics(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test program")
	}
	const attempts = 10
	bin := buildForReplay(t, "testdata/pinatomic")
	file, _ := filepath.Abs("testdata/pinatomic/mailbox_test.go")
	at := func(marker string) schedule.Pos { return schedule.Pos{File: file, Line: lineOf(t, file, marker)} }
	poke := at("case m.wake <-")
	// The failing interleaving, forced: the reader's Swap finds the slot empty, the test
	// goroutine puts and closes, then the reader finds the mailbox closed.
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
	r := func() *mutate.Run { return &mutate.Run{Trace: failing.Recorded, SelectPartners: map[int][]int{}} }

	free := mutate.Replay(r(), 0)
	steered := &schedule.Schedule{}
	if !mutate.PinAtomics(steered, r()) {
		t.Fatal("PinAtomics found no shared atomics in the failing run")
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
