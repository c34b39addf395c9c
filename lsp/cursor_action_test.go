package lsp

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer"
)

// lensFreeCaps are the capabilities of a client without code lenses (Helix, Kakoune's
// kak-lsp, Emacs eglot): progress and related information, no codeLens of either kind.
func lensFreeCaps() protocol.ClientCapabilities {
	yes := true
	return protocol.ClientCapabilities{
		Window: &protocol.WindowClientCapabilities{WorkDoneProgress: &yes},
		TextDocument: &protocol.TextDocumentClientCapabilities{PublishDiagnostics: &protocol.PublishDiagnosticsClientCapabilities{
			DiagnosticsCapabilities: protocol.DiagnosticsCapabilities{RelatedInformation: &yes}}},
	}
}

// cursorActions asks for the code actions at line:col (1-based line, 0-based column) of
// path with an empty range and no diagnostic, as a client does at the cursor.
func (se *session) cursorActions(path string, line, col int, only ...protocol.CodeActionKind) []*protocol.CodeAction {
	se.t.Helper()
	return se.cursorActionsTriggered(protocol.CodeActionTriggerKindInvoked, path, line, col, only...)
}

func (se *session) cursorActionsTriggered(trigger protocol.CodeActionTriggerKind, path string, line, col int, only ...protocol.CodeActionKind) []*protocol.CodeAction {
	se.t.Helper()
	pos := protocol.Position{Line: uint32(line - 1), Character: uint32(col)}
	res, err := se.remote.CodeAction(se.ctx(), &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(path)},
		Range:        protocol.Range{Start: pos, End: pos},
		Context:      protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{}, Only: only, TriggerKind: trigger},
	})
	if err != nil {
		se.t.Fatalf("codeAction at %d:%d: %v", line, col, err)
	}
	var out []*protocol.CodeAction
	for _, a := range res {
		ca, ok := a.(*protocol.CodeAction)
		if !ok {
			se.t.Fatalf("code action %T, want *CodeAction", a)
		}
		out = append(out, ca)
	}
	return out
}

func actionTitles(actions []*protocol.CodeAction) string {
	var titles []string
	for _, a := range actions {
		kind := ""
		if a.Kind != nil {
			kind = string(*a.Kind)
		}
		titles = append(titles, a.Title+" ("+kind+")")
	}
	return strings.Join(titles, "|")
}

// TestCursorActionsWithoutLenses: a client that declares no code lens support gets "fuzz
// this test" and "fuzz package tests" as code actions at the cursor in a test function
// (on its name, in its body) and the package action elsewhere in the file; running "fuzz
// this test" starts a campaign over that test whose findings become diagnostics. A
// request restricted to other kinds (quick fixes, organize imports on save) gets none.
func TestCursorActionsWithoutLenses(t *testing.T) {
	dir, testFile := buggyPackage(t)
	engine := &fakeEngine{fuzz: reportOf(sendOnClosed(testFile, analysis.Actual))}
	se := newSession(t, engine, sessionOption{caps: lensFreeCaps(), root: dir, initOptions: map[string]any{"backgroundFuzzing": false}})
	se.open(testFile)

	name := lineOf(t, buggySource, "func TestSend")
	want := "goweave: fuzz this test TestSend (source.goweave.fuzzTest)|goweave: fuzz package tests (source.goweave.fuzzPackage)"
	onName := se.cursorActions(testFile, name, len("func Test"))
	if got := actionTitles(onName); got != want {
		t.Fatalf("code actions on the test's name = %q, want %q", got, want)
	}
	if got := actionTitles(se.cursorActions(testFile, lineOf(t, buggySource, "c <- 1"), 2)); got != want {
		t.Errorf("code actions in the test's body = %q, want %q", got, want)
	}
	if got := actionTitles(se.cursorActions(testFile, lineOf(t, buggySource, "func TestOther"), 0)); !strings.HasPrefix(got, "goweave: fuzz this test TestOther ") {
		t.Errorf("code actions on TestOther = %q", got)
	}
	if got := actionTitles(se.cursorActions(testFile, lineOf(t, buggySource, "func helper"), 6)); got != "goweave: fuzz package tests (source.goweave.fuzzPackage)" {
		t.Errorf("code actions on a helper = %q, want the package action only", got)
	}
	if got := actionTitles(se.cursorActions(testFile, name, 6, "source")); got != want {
		t.Errorf("code actions with only [source] = %q, want %q", got, want)
	}
	for _, only := range []protocol.CodeActionKind{protocol.CodeActionKindQuickFix, protocol.CodeActionKindSourceOrganizeImports, protocol.CodeActionKindRefactor} {
		if got := se.cursorActions(testFile, name, 6, only); len(got) != 0 {
			t.Errorf("code actions with only [%s] = %q, want none", only, actionTitles(got))
		}
	}

	// Asked for automatically (a hint as the cursor moves), only where the lenses stand.
	auto := func(line, col int) string {
		return actionTitles(se.cursorActionsTriggered(protocol.CodeActionTriggerKindAutomatic, testFile, line, col))
	}
	if got := auto(name, len("func Test")); got != "goweave: fuzz this test TestSend (source.goweave.fuzzTest)" {
		t.Errorf("automatic code actions on the test's name = %q", got)
	}
	if got := auto(lineOf(t, buggySource, "c <- 1"), 2); got != "" {
		t.Errorf("automatic code actions in the test's body = %q, want none", got)
	}
	if got := auto(1, 3); got != "goweave: fuzz package tests (source.goweave.fuzzPackage)" {
		t.Errorf("automatic code actions on the package clause = %q", got)
	}

	// Run it as a client runs a code action that carries a command.
	cmd := onName[0].Command
	if _, err := se.remote.ExecuteCommand(se.ctx(), &protocol.ExecuteCommandParams{Command: cmd.Command, Arguments: cmd.Arguments}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the campaign's diagnostic", func() bool {
		p, ok := se.client.diagsOf(testFile)
		return ok && len(p.Diagnostics) == 1
	})
	engine.mu.Lock()
	configs := engine.configs
	engine.mu.Unlock()
	if len(configs) != 1 || configs[0].Run != "^TestSend$" || configs[0].Dir != dir {
		t.Errorf("campaigns = %+v; want one over ^TestSend$ in %s", configs, dir)
	}
	if ev := se.client.progressEvents(); len(ev) == 0 || ev[0].kind != "begin" || ev[0].value["title"] != "fuzzing TestSend in ./." {
		t.Errorf("progress = %+v, want the campaign's begin", ev)
	}

	// On the diagnostic, its quick fix "Fuzz this test again" stands for the cursor action.
	p, _ := se.client.diagsOf(testFile)
	res, err := se.remote.CodeAction(se.ctx(), &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(testFile)},
		Range:        p.Diagnostics[0].Range,
		Context:      protocol.CodeActionContext{Diagnostics: p.Diagnostics},
	})
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, a := range res {
		titles = append(titles, a.(*protocol.CodeAction).Title)
	}
	if got := strings.Join(titles, "|"); got != "Replay this bug|Show timeline|Fuzz this test again|goweave: fuzz package tests" {
		t.Errorf("code actions on the diagnostic = %q", got)
	}
}

// TestCursorStopAction: while a campaign runs over a test, its cursor action stops it.
func TestCursorStopAction(t *testing.T) {
	dir, testFile := buggyPackage(t)
	started := make(chan fuzzer.Config, 1)
	engine := &fakeEngine{fuzz: blockingFuzz(started)}
	se := newSession(t, engine, sessionOption{caps: lensFreeCaps(), root: dir, initOptions: map[string]any{"backgroundFuzzing": false}})
	se.open(testFile)
	if _, err := se.execute("goweave.fuzz_test", FuzzTestArgs{URI: uri.File(testFile), Test: "TestSend"}); err != nil {
		t.Fatal(err)
	}
	<-started
	actions := se.cursorActions(testFile, lineOf(t, buggySource, "func TestSend"), 6)
	if got := actionTitles(actions); got != "goweave: stop fuzzing TestSend (source.goweave.stop)|goweave: fuzz package tests (source.goweave.fuzzPackage)" {
		t.Fatalf("code actions during the campaign = %q", got)
	}
	cmd := actions[0].Command
	if _, err := se.remote.ExecuteCommand(se.ctx(), &protocol.ExecuteCommandParams{Command: cmd.Command, Arguments: cmd.Arguments}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the campaign's end", func() bool { _, running, returned := engine.stats(); return running == 0 && returned == 1 })
}
