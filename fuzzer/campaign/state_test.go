package campaign

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer/build"
)

// stateCampaign is a campaign of one test whose binary is the file bin.
func stateCampaign(t *testing.T, outDir, bin string) (*campaign, *testState) {
	t.Helper()
	st, err := newSteeringStrategy("auto", 1)
	if err != nil {
		t.Fatal(err)
	}
	c := &campaign{cfg: Config{OutDir: outDir, Strategy: "auto"}, dir: filepath.Join(outDir, "20261122T010000.000-1-1"),
		findings: map[string]*Finding{}, byPrimary: map[string]*Finding{}, traceRefs: map[string]int{}}
	ts := &testState{bin: &build.TestBinary{Package: "example.com/p", Path: bin}, name: "TestA", strategy: st,
		signatures: map[string]bool{}, statuses: map[string]int{}}
	c.tests = []*testState{ts}
	return c, ts
}

// A campaign saves what it learned of a test; the next campaign of the same binary starts
// from it, and one of a changed binary starts over.
func TestStateCarriesOverToTheNextCampaign(t *testing.T) {
	out := t.TempDir()
	bin := filepath.Join(out, "p.test")
	if err := os.WriteFile(bin, []byte("binary v1"), 0o755); err != nil {
		t.Fatal(err)
	}
	c, ts := stateCampaign(t, out, bin)
	ts.runs, ts.signatures = 4, map[string]bool{"sig-a": true, "sig-b": true}
	ts.queue = []*RunRequest{{Strategy: "flow", Key: "flow:1", Note: "delay x", Recipe: []byte("goweave-schedule v1\n")}, {Strategy: "gopie", Key: "gopie:2", Recipe: []byte("r2")}}
	st := ts.strategy.(*steeringStrategy)
	st.proposed["flow:1"], st.proposed["gopie:2"], st.proposed["gfuzz:run"] = true, true, true
	st.gfuzz().State.Runs = 4
	leak := Finding{Finding: analysis.Finding{Kind: "leak-mutex", Fingerprint: "fp1", Package: "example.com/p", Test: "TestA",
		Positions: []analysis.Position{{File: "/src/p/q_test.go", Line: 19}}}, ID: "GW1", Run: 3, Strategy: "flow",
		Recipe: filepath.Join(c.dir, "findings", "GW1.json")}
	other := leak
	other.Test, other.Fingerprint = "TestB", "fp2"
	if err := c.saveStates(&Report{Findings: []Finding{leak, other}}); err != nil {
		t.Fatal(err)
	}

	c2, ts2 := stateCampaign(t, out, bin)
	c2.loadStates()
	if ts2.earlierRuns != 4 || ts2.earlierCampaigns != 1 || !ts2.seenBefore["sig-a"] || !ts2.seenBefore["sig-b"] {
		t.Errorf("restored runs %d, campaigns %d, signatures %v", ts2.earlierRuns, ts2.earlierCampaigns, ts2.seenBefore)
	}
	var keys []string
	for _, r := range ts2.queue {
		keys = append(keys, r.Key)
	}
	if !slices.Equal(keys, []string{"flow:1", "gopie:2"}) || string(ts2.queue[0].Recipe) != "goweave-schedule v1\n" || ts2.queue[0].Note != "delay x" {
		t.Errorf("restored queue %v (first %+v)", keys, ts2.queue[0])
	}
	st2 := ts2.strategy.(*steeringStrategy)
	if !st2.proposed["gfuzz:run"] || len(st2.proposed) != 3 || st2.gfuzz().State.Runs != 4 {
		t.Errorf("restored proposed %v, gfuzz runs %d", st2.proposed, st2.gfuzz().State.Runs)
	}
	if len(ts2.found) != 1 || !ts2.found[0].Earlier || ts2.found[0].Fingerprint != "fp1" || c2.findings["fp1"] == nil {
		t.Fatalf("restored findings %+v, want fp1 marked earlier (not TestB's)", ts2.found)
	}
	// Found again by this campaign: this campaign's run is the evidence.
	again := leak
	again.Run = 7
	if stored, isNew := c2.merge(ts2, &again); stored == nil || isNew || stored.Earlier || stored.Run != 7 {
		t.Errorf("merge of a finding found again: %+v, new %v", stored, isNew)
	}
	// Two campaigns now.
	ts2.runs = 1
	if err := c2.saveStates(c2.result()); err != nil {
		t.Fatal(err)
	}
	c3, ts3 := stateCampaign(t, out, bin)
	c3.loadStates()
	if ts3.earlierRuns != 5 || ts3.earlierCampaigns != 2 {
		t.Errorf("after two campaigns: runs %d, campaigns %d", ts3.earlierRuns, ts3.earlierCampaigns)
	}

	// The code changed: the state no longer holds.
	if err := os.WriteFile(bin, []byte("binary v2"), 0o755); err != nil {
		t.Fatal(err)
	}
	c4, ts4 := stateCampaign(t, out, bin)
	c4.loadStates()
	if ts4.earlierCampaigns != 0 || len(ts4.queue) != 0 || len(ts4.found) != 0 || len(c4.findings) != 0 {
		t.Errorf("state of another binary restored: campaigns %d, queue %d, findings %d", ts4.earlierCampaigns, len(ts4.queue), len(ts4.found))
	}
	// The campaign the saved finding points at survives pruning.
	if saved := savedCampaigns(out, time.Now()); !saved["20261122T010000.000-1-1"] {
		t.Errorf("saved campaigns %v, want the finding's", saved)
	}
}

// A corrupt state file costs only the saved work.
func TestStateCorruptIsIgnored(t *testing.T) {
	out := t.TempDir()
	bin := filepath.Join(out, "p.test")
	os.WriteFile(bin, []byte("binary"), 0o755)
	c, ts := stateCampaign(t, out, bin)
	path := c.statePath(ts)
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(`{"version":1,"package":"example.com/p","test":"TestA","queue":[{"key":`), 0o644)
	c.loadStates()
	if ts.earlierCampaigns != 0 || len(ts.queue) != 0 {
		t.Errorf("restored from a corrupt file: %+v", ts)
	}
}

// End to end: a second goweave fuzz of the same tests continues the first: earlier runs
// and signatures are counted, a finding it does not see again is reported as earlier, and
// Fresh starts over.
func TestFuzzContinuesFromSavedState(t *testing.T) {
	fakeAnalysis(t)
	cfg := fakeConfig(t)
	cfg.Run, cfg.RunsPerTest, cfg.Parallel = "FromThird", 3, 1
	if _, err := Fuzz(context.Background(), cfg, nil); err != nil {
		t.Fatal(err)
	}
	cfg.RunsPerTest = 2
	rep, err := Fuzz(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Tests) != 1 || rep.Tests[0].EarlierRuns != 3 || rep.Tests[0].EarlierCampaigns != 1 || rep.Tests[0].TotalSignatures != 2 {
		t.Errorf("second campaign: %+v, want 3 earlier runs of 1 campaign, 2 signatures in all", rep.Tests)
	}
	if len(rep.Findings) != 1 || !rep.Findings[0].Earlier || rep.Findings[0].Run != 3 {
		t.Errorf("second campaign's findings %+v, want from-third of the earlier run 3", rep.Findings)
	}
	cfg.Fresh = true
	rep, err = Fuzz(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 0 || rep.Tests[0].EarlierRuns != 0 {
		t.Errorf("fresh campaign: findings %+v, tests %+v", rep.Findings, rep.Tests)
	}
}

// An earlier campaign's confirmed finding, only predicted by this campaign's run, stays as
// it was: its recipe replays the bug, the predicting run's would not.
func TestEarlierConfirmedFindingIsKept(t *testing.T) {
	c, ts := stateCampaign(t, t.TempDir(), "")
	earlier := &Finding{Finding: analysis.Finding{Kind: "send-on-closed", Confidence: analysis.Confirmed, Fingerprint: "fp", Package: "example.com/p", Test: "TestA",
		Positions: []analysis.Position{{File: "/src/p/a.go", Line: 7}}}, Run: 4, Recipe: "/old/findings/GW1.json", Earlier: true}
	c.findings["fp"], c.byPrimary[primaryKey(earlier)] = earlier, earlier
	ts.found = []*Finding{earlier}
	predicted := *earlier
	predicted.Confidence, predicted.Run, predicted.Earlier, predicted.Recipe = analysis.Predicted, 1, false, ""
	if stored, _ := c.merge(ts, &predicted); stored != nil {
		t.Errorf("merge replaced the confirmed finding: %+v", stored)
	}
	if f := c.findings["fp"]; f.Confidence != analysis.Confirmed || f.Recipe != "/old/findings/GW1.json" || !f.Earlier {
		t.Errorf("finding now %+v", f)
	}
}

// The saved state stays small however long the campaign: each strategy's first queued
// schedules, a bounded set of keys; a state from another goweave build is ignored.
func TestStateIsBounded(t *testing.T) {
	out := t.TempDir()
	bin := filepath.Join(out, "p.test")
	os.WriteFile(bin, []byte("binary"), 0o755)
	c, ts := stateCampaign(t, out, bin)
	ts.runs = 1
	st := ts.strategy.(*steeringStrategy)
	for i := range 1000 {
		s := []string{"gopie", "gopie", "gopie", "flow"}[i%4]
		key := fmt.Sprintf("%s:%d", s, i)
		ts.queue = append(ts.queue, &RunRequest{Strategy: s, Key: key})
		st.proposed[key] = true
	}
	for i := range 2 * maxSavedProposed {
		st.proposed[fmt.Sprint("done:", i)] = true
	}
	if err := c.saveStates(&Report{}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(c.statePath(ts))
	if err != nil {
		t.Fatal(err)
	}
	var s savedTest
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, r := range s.Queue {
		per[r.Strategy]++
	}
	if per["gopie"] != maxSavedPerStrategy || per["flow"] != maxSavedPerStrategy || len(s.Proposed) != maxSavedProposed {
		t.Errorf("saved queue %v per strategy, %d keys; want %d each, %d keys", per, len(s.Proposed), maxSavedPerStrategy, maxSavedProposed)
	}
	if fi, err := os.Stat(c.statePath(ts)); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("state file mode %v, %v", fi.Mode(), err)
	}

	s.Goweave = "another build"
	data, _ = json.Marshal(s)
	os.WriteFile(c.statePath(ts), data, 0o644)
	c2, ts2 := stateCampaign(t, out, bin)
	c2.loadStates()
	if ts2.earlierCampaigns != 0 || len(ts2.queue) != 0 {
		t.Errorf("state of another goweave build restored: %d campaigns, %d queued", ts2.earlierCampaigns, len(ts2.queue))
	}
}

// Two campaigns of one test side by side (the language server's and a terminal's): the one
// that saves last keeps what the other found and ran.
func TestStateMergesACampaignThatSavedMeanwhile(t *testing.T) {
	out := t.TempDir()
	bin := filepath.Join(out, "p.test")
	os.WriteFile(bin, []byte("binary"), 0o755)
	finding := func(fp string, run int) Finding {
		return Finding{Finding: analysis.Finding{Kind: "leak-chan", Fingerprint: fp, Package: "example.com/p", Test: "TestA",
			Positions: []analysis.Position{{File: "/src/p/a.go", Line: run}}}, Run: run}
	}
	a, ta := stateCampaign(t, out, bin)
	b, tb := stateCampaign(t, out, bin)
	ta.runs, ta.signatures = 5, map[string]bool{"sig-a": true}
	tb.runs, tb.signatures = 3, map[string]bool{"sig-b": true}
	ta.strategy.(*steeringStrategy).proposed["key-a"] = true
	tb.strategy.(*steeringStrategy).proposed["key-b"] = true
	if err := a.saveStates(&Report{Findings: []Finding{finding("fa", 2)}}); err != nil {
		t.Fatal(err)
	}
	if err := b.saveStates(&Report{Findings: []Finding{finding("fb", 1)}}); err != nil {
		t.Fatal(err)
	}
	c, tc := stateCampaign(t, out, bin)
	c.loadStates()
	st := tc.strategy.(*steeringStrategy)
	if tc.earlierRuns != 8 || !tc.seenBefore["sig-a"] || !tc.seenBefore["sig-b"] || !st.proposed["key-a"] || !st.proposed["key-b"] {
		t.Errorf("merged state: runs %d, signatures %v, keys %v", tc.earlierRuns, tc.seenBefore, st.proposed)
	}
	if c.findings["fa"] == nil || c.findings["fb"] == nil {
		t.Errorf("merged findings %v, want fa and fb", c.findings)
	}
}

// A state not written for a month goes, and with it the pin on its campaign directory.
func TestSavedCampaignsForgetsOldStates(t *testing.T) {
	out := t.TempDir()
	os.MkdirAll(filepath.Join(out, "state"), 0o755)
	write := func(name, campaign string, age time.Duration) string {
		p := filepath.Join(out, "state", name)
		data, _ := json.Marshal(savedTest{Findings: []Finding{{Replay: filepath.Join(out, campaign, "recipes", "x.schedule")}}})
		os.WriteFile(p, data, 0o644)
		when := time.Now().Add(-age)
		os.Chtimes(p, when, when)
		return p
	}
	write("new.json", "20261122T000000.000-1-1", time.Hour)
	old := write("old.json", "20261001T000000.000-1-1", 40*24*time.Hour)
	saved := savedCampaigns(out, time.Now())
	if !saved["20261122T000000.000-1-1"] || saved["20261001T000000.000-1-1"] {
		t.Errorf("pinned %v, want only the recent state's campaign (pinned by its replay schedule)", saved)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("old state still there: %v", err)
	}
}

// A campaign whose state cannot be saved still reports everything, with a warning.
func TestFuzzStateSaveFailureIsAWarning(t *testing.T) {
	fakeAnalysis(t)
	cfg := fakeConfig(t)
	cfg.Run, cfg.RunsPerTest = "Always", 1
	if err := os.WriteFile(filepath.Join(cfg.OutDir, "state"), nil, 0o644); err != nil { // a file where the directory goes
		t.Fatal(err)
	}
	rep, err := Fuzz(context.Background(), cfg, nil)
	if err != nil {
		t.Fatalf("Fuzz failed: %v", err)
	}
	if len(rep.Findings) != 1 || len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "start over") {
		t.Errorf("findings %d, warnings %q", len(rep.Findings), rep.Warnings)
	}
}

// With -until-wants, a test whose restored findings already suffice does not run.
func TestFuzzEnoughFromSavedState(t *testing.T) {
	fakeAnalysis(t)
	cfg := fakeConfig(t)
	cfg.Run, cfg.RunsPerTest = "Always", 2
	if _, err := Fuzz(context.Background(), cfg, nil); err != nil {
		t.Fatal(err)
	}
	cfg.Enough = func(_ TestID, found []Finding) bool { return len(found) > 0 }
	rep, err := Fuzz(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Tests) != 1 || rep.Tests[0].Runs != 0 || len(rep.Findings) != 1 || !rep.Findings[0].Earlier {
		t.Errorf("tests %+v, findings %+v: want no run and the earlier finding", rep.Tests, rep.Findings)
	}
}

// A test's saved state stays under its byte budget campaign after campaign, the queue's
// latest schedules dropped first; what is kept comes back exactly.
func TestStateStaysUnderItsByteBudget(t *testing.T) {
	out := t.TempDir()
	bin := filepath.Join(out, "p.test")
	os.WriteFile(bin, []byte("binary"), 0o755)
	const budget = 120 << 10
	var want []string
	for campaign := range 3 {
		c, ts := stateCampaign(t, out, bin)
		c.cfg.StateBytes = budget
		c.loadStates()
		ts.runs = 1
		for v := range 40 {
			recipe := bigScheduleOf(campaign, 3000, 2990-v*50, v)
			ts.queue = append(ts.queue, &RunRequest{Strategy: []string{"gopie", "prefix"}[v%2], Key: fmt.Sprintf("k%d.%d", campaign, v), Recipe: []byte(recipe)})
			ts.signatures[fmt.Sprintf("sig%d.%d", campaign, v)] = true
		}
		want = want[:0]
		for _, r := range ts.queue {
			want = append(want, string(r.Recipe))
		}
		if err := c.saveStates(&Report{}); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(c.statePath(ts))
		if err != nil || fi.Size() > budget {
			t.Fatalf("campaign %d: state of %d bytes, budget %d (%v)", campaign, fi.Size(), budget, err)
		}
	}
	_, ts := stateCampaign(t, out, bin)
	c, _ := stateCampaign(t, out, bin)
	c.tests[0] = ts
	c.loadStates()
	if len(ts.queue) == 0 || len(ts.queue) == len(want) {
		t.Fatalf("%d of %d schedules restored: the budget should keep some, not all", len(ts.queue), len(want))
	}
	for i, r := range ts.queue {
		if string(r.Recipe) != want[i] {
			t.Fatalf("restored schedule %d differs", i)
		}
	}
	if ts.earlierCampaigns != 3 || len(ts.seenBefore) != 120 {
		t.Errorf("restored %d campaigns, %d signatures", ts.earlierCampaigns, len(ts.seenBefore))
	}
}
