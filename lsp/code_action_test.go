package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer"
)

// TestReplayCodeAction: the code actions of a goweave diagnostic; running "Replay this
// bug" reports the outcome and turns a predicted finding into a confirmed one.
func TestReplayCodeAction(t *testing.T) {
	dir, testFile := buggyPackage(t)
	var replayed []string
	engine := &fakeEngine{
		fuzz: reportOf(sendOnClosed(testFile, analysis.Predicted)),
		replay: func(ctx context.Context, cfg fuzzer.Config, f fuzzer.Finding) (*ReplayResult, error) {
			replayed = append(replayed, cfg.Run+" "+f.ID)
			return &ReplayResult{Reproduced: true, Status: "panic", Panic: "send on closed channel",
				Blocked: []string{"goroutine 7 [chan receive] at buggy_test.go:20"}}, nil
		},
	}
	se := newSession(t, engine, sessionOption{caps: fullCaps(), root: dir, initOptions: map[string]any{"backgroundFuzzing": false}})
	se.open(testFile)
	if _, err := se.execute("goweave.fuzz_test", FuzzTestArgs{URI: uri.File(testFile), Test: "TestSend"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "diagnostics", func() bool { p, ok := se.client.diagsOf(testFile); return ok && len(p.Diagnostics) == 1 })
	p, _ := se.client.diagsOf(testFile)
	diag := p.Diagnostics[0]

	actions, err := se.remote.CodeAction(se.ctx(), &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(testFile)},
		Range:        diag.Range,
		Context:      protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{diag, {Message: protocol.String("from gopls")}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	cmds := map[string]protocol.Command{}
	for _, a := range actions {
		ca, ok := a.(*protocol.CodeAction)
		if !ok {
			t.Fatalf("action %T, want *CodeAction", a)
		}
		titles = append(titles, ca.Title)
		cmds[ca.Title] = ca.Command
	}
	// Then the cursor's actions (cursor_action_test.go); "fuzz this test" gives way to "Fuzz this test again".
	if strings.Join(titles, "|") != "Replay this bug|Show timeline|Fuzz this test again|goweave: fuzz package tests" {
		t.Fatalf("code actions = %q", titles)
	}
	var again FuzzTestArgs
	if err := json.Unmarshal(cmds["Fuzz this test again"].Arguments[0], &again); err != nil || again.Test != "TestSend" || again.URI != uri.File(testFile) {
		t.Errorf("fuzz again arguments = %+v, %v", again, err)
	}

	replay := cmds["Replay this bug"]
	res, err := se.remote.ExecuteCommand(se.ctx(), &protocol.ExecuteCommandParams{Command: replay.Command, Arguments: replay.Arguments})
	if err != nil {
		t.Fatal(err)
	}
	var rr ReplayResponse
	if err := json.Unmarshal(res, &rr); err != nil || !rr.Reproduced || rr.Panic != "send on closed channel" {
		t.Fatalf("replay result = %s, %v", res, err)
	}
	if len(replayed) != 1 || replayed[0] != "^TestSend$ f1a2" {
		t.Errorf("engine replays = %q, want the finding's campaign and id", replayed)
	}
	m := se.waitShown("confirmed: send-on-closed happened again in TestSend")
	if !strings.Contains(m.Message, "panic: send on closed channel") || !strings.Contains(m.Message, "goroutine 7 [chan receive]") {
		t.Errorf("replay message = %q, want the panic and the blocked goroutines", m.Message)
	}
	waitFor(t, "confirmed diagnostic", func() bool {
		p, _ := se.client.diagsOf(testFile)
		return len(p.Diagnostics) == 1 && p.Diagnostics[0].Severity == protocol.DiagnosticSeverityError &&
			strings.Contains(string(p.Diagnostics[0].Message.(protocol.String)), "[confirmed]")
	})

	timelineCmd := cmds["Show timeline"]
	res, err = se.remote.ExecuteCommand(se.ctx(), &protocol.ExecuteCommandParams{Command: timelineCmd.Command, Arguments: timelineCmd.Arguments})
	if err != nil {
		t.Fatal(err)
	}
	var tr ShowTimelineResult
	if err := json.Unmarshal(res, &tr); err != nil || !tr.Opened {
		t.Fatalf("timeline result = %s, %v", res, err)
	}
	page, err := os.ReadFile(tr.Path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"send-on-closed in TestSend", "buggy_test.go:14", "buggy_test.go:16", `class="ev hl"`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("timeline page lacks %q", want)
		}
	}
	se.client.mu.Lock()
	docs := se.client.documents
	se.client.mu.Unlock()
	if len(docs) != 1 || docs[0].URI != uri.File(tr.Path) || docs[0].External == nil || !*docs[0].External {
		t.Errorf("showDocument requests = %+v, want the page, external", docs)
	}
	se.shutdown()
}

// TestReplayNotReproduced and engines without replay: a warning, no confirmation.
func TestReplayFailures(t *testing.T) {
	dir, testFile := buggyPackage(t)
	engine := &fakeEngine{
		fuzz: reportOf(sendOnClosed(testFile, analysis.Predicted)),
		replay: func(ctx context.Context, cfg fuzzer.Config, f fuzzer.Finding) (*ReplayResult, error) {
			return &ReplayResult{Reproduced: false, Status: "pass"}, nil
		},
	}
	se := newSession(t, engine, sessionOption{root: dir, initOptions: map[string]any{"backgroundFuzzing": false}})
	if _, err := se.execute("goweave.fuzz_test", FuzzTestArgs{URI: uri.File(testFile), Test: "TestSend"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "diagnostics", func() bool { p, ok := se.client.diagsOf(testFile); return ok && len(p.Diagnostics) == 1 })
	res, err := se.execute("goweave.replay", ReplayArgs{ID: "f1a2"})
	if err != nil {
		t.Fatal(err)
	}
	var rr ReplayResponse
	if err := json.Unmarshal(res, &rr); err != nil || rr.Reproduced {
		t.Fatalf("replay result = %s, %v", res, err)
	}
	m := se.waitShown(`not reproduced: the replayed run of TestSend ended with status "pass"`)
	if m.Type != protocol.MessageTypeWarning {
		t.Errorf("type = %v, want warning", m.Type)
	}
	p, _ := se.client.diagsOf(testFile)
	if p.Diagnostics[0].Severity != protocol.DiagnosticSeverityWarning {
		t.Errorf("an unreproduced prediction changed severity")
	}

	engine.mu.Lock()
	engine.replay = func(ctx context.Context, cfg fuzzer.Config, f fuzzer.Finding) (*ReplayResult, error) {
		return nil, errors.New("replay: test TestSend not found in package example.com/buggy")
	}
	engine.mu.Unlock()
	if _, err := se.execute("goweave.replay", ReplayArgs{ID: "f1a2"}); err == nil || !strings.Contains(err.Error(), "not found in package") {
		t.Errorf("failing replay: %v", err)
	}
	se.waitShown("failed: replay: test TestSend not found")
	se.shutdown()
}

// TestShowTimelineClientOpens: a client declaring experimental.goweave.openTimeline gets
// the page's path and URI and opens it itself: the server sends no window/showDocument
// (which in a web or remote window points at a file the browser cannot reach).
func TestShowTimelineClientOpens(t *testing.T) {
	dir, testFile := buggyPackage(t)
	engine := &fakeEngine{fuzz: reportOf(sendOnClosed(testFile, analysis.Actual))}
	caps := fullCaps()
	caps.Experimental = []byte(`{"goweave": {"openTimeline": true}}`)
	se := newSession(t, engine, sessionOption{caps: caps, root: dir, initOptions: map[string]any{"backgroundFuzzing": false}})
	if _, err := se.execute("goweave.fuzz_test", FuzzTestArgs{URI: uri.File(testFile), Test: "TestSend"}); err != nil {
		t.Fatal(err)
	}
	id := sendOnClosed(testFile, analysis.Actual).ID
	waitFor(t, "the finding", func() bool { _, ok := se.server.findings.get(id); return ok })
	res, err := se.execute("goweave.show_timeline", ShowTimelineArgs{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	var tr struct {
		Path   string `json:"path"`
		URI    string `json:"uri"`
		Opened bool   `json:"opened"`
	}
	if err := json.Unmarshal(res, &tr); err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(tr.Path) || tr.URI != string(uri.File(tr.Path)) || !strings.HasPrefix(tr.URI, "file://") || tr.Opened {
		t.Errorf("timeline result = %s, want an absolute path, its file URI, not opened", res)
	}
	if page, err := os.ReadFile(tr.Path); err != nil || !strings.Contains(string(page), "send-on-closed in TestSend") {
		t.Errorf("timeline page: %v", err)
	}
	se.client.mu.Lock()
	docs := len(se.client.documents)
	se.client.mu.Unlock()
	if docs != 0 {
		t.Errorf("%d window/showDocument requests, want none", docs)
	}
	if msgs := se.client.shownMessages(); len(msgs) != 0 {
		t.Errorf("messages shown: %+v, want none (the client opens the page)", msgs)
	}
	se.shutdown()
}
