package lsp

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/goweave/goweave/fuzzer"
)

func (c *testClient) loggedMessages() []protocol.LogMessageParams {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]protocol.LogMessageParams(nil), c.logged...)
}

// endMessages returns the messages of the progress ends so far.
func (se *session) endMessages() []string {
	var out []string
	for _, ev := range se.client.progressEvents() {
		if ev.kind == "end" {
			msg, _ := ev.value["message"].(string)
			out = append(out, msg)
		}
	}
	return out
}

// A campaign's warnings reach the editor user: each kind once as a warning notification
// (the next campaign's run over the memory budget, with other run numbers and figures, is
// not shown again), every one in the log, and the progress end counts them. The budget's
// warning names the editor's setting, which reaches the campaigns.
func TestCampaignWarningsShown(t *testing.T) {
	dir, testFile := buggyPackage(t)
	overBudget := func(run, held int) string {
		return fmt.Sprintf("analysis of run %d of example.com/buggy.TestSend stopped: it needs more than its memory budget of 512 MB (%d MB held, 4000000 events); this run is not analyzed, the others are; raise the budget (-analysis-memory) or make the test smaller", run, held)
	}
	stateLost := "the next campaign will start over: saving the campaign state: no space left on device"
	warnings := [][]string{{overBudget(3, 530), stateLost}, {overBudget(7, 541)}}
	var calls atomic.Int32
	engine := &fakeEngine{fuzz: func(ctx context.Context, cfg fuzzer.Config, progress func(fuzzer.Progress)) (*fuzzer.Report, error) {
		n := int(calls.Add(1)) - 1
		progress(fuzzer.Progress{Package: "example.com/buggy", TestsDone: 1, TestsTotal: 1, Runs: 10, Done: true})
		rep := &fuzzer.Report{Tests: []fuzzer.TestResult{{Package: "example.com/buggy", Test: "TestSend", Runs: 10, Status: "pass"}},
			Warnings: warnings[min(n, len(warnings)-1)]}
		if n == 1 {
			rep.Unfinished = []fuzzer.Unfinished{{Package: "example.com/buggy", Test: "TestSlow", Why: "its runs were stopped"}}
		}
		return rep, nil
	}}
	se := newSession(t, engine, sessionOption{caps: fullCaps(), root: dir, initOptions: map[string]any{"analysisMemory": 2048}})
	se.open(testFile)
	waitFor(t, "the first campaign's end", func() bool { return len(se.endMessages()) == 1 })
	if msg := se.endMessages()[0]; !strings.Contains(msg, "2 warnings") {
		t.Errorf("progress end %q does not count the 2 warnings", msg)
	}
	if err := se.remote.DidSave(se.ctx(), &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(testFile)}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the second campaign's end", func() bool { return len(se.endMessages()) == 2 })
	if msg := se.endMessages()[1]; !strings.Contains(msg, "1 warning") || !strings.Contains(msg, "1 test with no finished run") {
		t.Errorf("progress end %q does not count the warning and the test with no finished run", msg)
	}

	var shown []string
	for _, m := range se.client.shownMessages() {
		if m.Type == protocol.MessageTypeWarning {
			shown = append(shown, m.Message)
		}
	}
	if len(shown) != 2 || !strings.Contains(shown[0], "run 3") || !strings.Contains(shown[1], "start over") {
		t.Fatalf("warnings shown: %q; want the memory budget's (run 3) and the lost state's, once each", shown)
	}
	if !strings.Contains(shown[0], "(setting analysisMemory, in MB)") || strings.Contains(shown[0], "-analysis-memory") {
		t.Errorf("the budget's warning names goweave fuzz's flag, not the editor's setting: %s", shown[0])
	}
	engine.mu.Lock()
	for _, cfg := range engine.configs {
		if cfg.AnalysisMemory != 2048<<20 {
			t.Errorf("campaign analysis memory %d bytes, want the setting's 2048 MB", cfg.AnalysisMemory)
		}
	}
	engine.mu.Unlock()
	logged := 0
	for _, m := range se.client.loggedMessages() {
		for _, w := range []string{overBudget(3, 530), stateLost, overBudget(7, 541)} {
			w = strings.ReplaceAll(w, "(-analysis-memory)", "(setting analysisMemory, in MB)")
			if m.Type == protocol.MessageTypeWarning && strings.HasSuffix(m.Message, w) {
				logged++
			}
		}
	}
	if logged != 3 {
		t.Errorf("%d warnings logged, want all 3", logged)
	}
}

// The flags a campaign warning names become what the editor user can set.
func TestWarningFlagsForEditor(t *testing.T) {
	for in, want := range map[string]string{
		"p.TestX: 2 of its 5 runs not analyzed (2: the time budget (-time 20s) ended during the analysis)":                                               "p.TestX: 2 of its 5 runs not analyzed (2: the time budget (setting budgetPerTest: 20s) ended during the analysis)",
		"p.TestX: 1 confirmation run stopped unfinished by the end of its time budget (-time 5s): a predicted finding may stay unconfirmed; raise -time": "p.TestX: 1 confirmation run stopped unfinished by the end of its time budget (setting budgetPerTest: 5s): a predicted finding may stay unconfirmed; raise the setting budgetPerTest",
		"p.TestX: slow, not hung: 1 run past the time limit of 10s; raise the time limit (-timeout 23s or more)":                                         "p.TestX: slow, not hung: 1 run past the time limit of 10s; raise the time limit (goweave fuzz -timeout 23s or more, from a terminal: the editor's campaigns keep the default time limit)",
		// the loans of slow tests (fuzzer/campaign/budget.go)
		"3 tests needed more than their share (-time 1s): 9s of the campaign's 10s for slow tests went to them (p.TestX 5s), so the campaign took about 4.5s more than tests × -time / -p; raise -time to give every test more":    "3 tests needed more than their share (setting budgetPerTest: 1s): 9s of the campaign's 10s for slow tests went to them (p.TestX 5s), so the campaign took about 4.5s more than tests × budgetPerTest / parallel; raise the setting budgetPerTest to give every test more",
		"p.TestY: no run finished: its first run went on past its time budget (-time 1s) until the campaign's time for slow tests (10s, tests × -time) was spent, and was stopped after 6s; rerun it alone or with a larger -time": "p.TestY: no run finished: its first run went on past its time budget (setting budgetPerTest: 1s) until the campaign's time for slow tests (10s, tests × budgetPerTest) was spent, and was stopped after 6s; rerun it alone or with a larger budgetPerTest setting",
	} {
		if got := forEditor(in); got != want {
			t.Errorf("forEditor(%q)\n = %q\nwant %q", in, got, want)
		}
	}
}

// A test the campaign could not fuzz (it fails in every run) is an error message on every
// campaign that has it, not only the first: it stays broken until the user fixes it.
func TestCampaignErrorsShown(t *testing.T) {
	dir, testFile := buggyPackage(t)
	broken := "example.com/buggy.TestSend fails without goweave's scheduling: fix the test first (all 3 runs failed): buggy_test.go:9: boom"
	engine := &fakeEngine{fuzz: func(ctx context.Context, cfg fuzzer.Config, progress func(fuzzer.Progress)) (*fuzzer.Report, error) {
		progress(fuzzer.Progress{Package: "example.com/buggy", TestsDone: 1, TestsTotal: 1, Runs: 3, Done: true})
		return &fuzzer.Report{Tests: []fuzzer.TestResult{{Package: "example.com/buggy", Test: "TestSend", Runs: 3, Status: "fail"}},
			Errors: []string{broken}}, nil
	}}
	se := newSession(t, engine, sessionOption{caps: fullCaps(), root: dir})
	se.open(testFile)
	waitFor(t, "the first campaign's end", func() bool { return len(se.endMessages()) == 1 })
	if err := se.remote.DidSave(se.ctx(), &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(testFile)}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the second campaign's end", func() bool { return len(se.endMessages()) == 2 })
	shown := 0
	for _, m := range se.client.shownMessages() {
		if m.Type == protocol.MessageTypeError && strings.HasSuffix(m.Message, broken) {
			shown++
		}
	}
	if shown != 2 {
		t.Errorf("the broken test's error shown %d times, want once per campaign (2): %v", shown, se.client.shownMessages())
	}
}
