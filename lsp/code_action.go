package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Kinds of the code actions that start campaigns. They are source actions (kind "source.…"):
// they change no code and do not fix a diagnostic. Helix, kak-lsp, Emacs eglot and Neovim ask
// for code actions at the cursor without `only` and list every kind, so their users, who have
// no code lenses, find "fuzz this test" there; VS Code leaves source actions out of its light
// bulb and shows them under "Source Action…", beside the lenses that already offer them. A
// request with `only` gets them only when it names one of these kinds or a prefix ("source"):
// a client applying source.organizeImports on save never starts a campaign by accident.
const (
	kindFuzzTest    protocol.CodeActionKind = "source.goweave.fuzzTest"
	kindFuzzPackage protocol.CodeActionKind = "source.goweave.fuzzPackage"
	kindStop        protocol.CodeActionKind = "source.goweave.stop"
)

// Titles of the cursor code actions; the test's name follows "fuzz this test".
const (
	titleFuzzTest    = "goweave: fuzz this test"
	titleFuzzPackage = "goweave: fuzz package tests"
	titleStop        = "goweave: stop fuzzing"
)

// codeActionKinds are the kinds the server returns, advertised in initialize.
var codeActionKinds = []protocol.CodeActionKind{protocol.CodeActionKindQuickFix, kindFuzzTest, kindFuzzPackage, kindStop}

// CodeAction implements textDocument/codeAction: on a goweave diagnostic, "Replay this
// bug", "Show timeline" and "Fuzz this test again"; in a test file, what its code lenses
// offer: "fuzz this test" when the range is in a test function (its doc comment, name,
// signature or body), "fuzz package tests" anywhere, "stop fuzzing" while the package is
// being fuzzed.
func (s *Server) CodeAction(ctx context.Context, params *protocol.CodeActionParams) ([]protocol.CommandOrCodeAction, error) {
	actions := []protocol.CommandOrCodeAction{}
	docURI := params.TextDocument.URI
	wanted := func(kind protocol.CodeActionKind) bool { return kindRequested(params.Context.Only, kind) }
	again := map[string]bool{} // tests offered "Fuzz this test again"
	seen := map[string]bool{}
	for _, d := range params.Context.Diagnostics {
		if !wanted(protocol.CodeActionKindQuickFix) {
			break
		}
		id, ok := findingID(d)
		if !ok || seen[id] {
			continue
		}
		seen[id] = true
		sf, ok := s.findings.get(id)
		if !ok {
			continue // from an older campaign: the client will get fresh diagnostics
		}
		quickfix := protocol.CodeActionKindQuickFix
		diags := []protocol.Diagnostic{d}
		add := func(cmd protocol.Command) {
			actions = append(actions, &protocol.CodeAction{Title: cmd.Title, Kind: &quickfix, Diagnostics: diags, Command: cmd})
		}
		add(newCommand("Replay this bug", "goweave.replay", ReplayArgs{ID: id}))
		add(newCommand("Show timeline", "goweave.show_timeline", ShowTimelineArgs{ID: id}))
		if sf.Test != "" {
			testFile := docURI
			if docURI.IsFile() && filepath.Dir(docURI.FsPath()) != sf.dir {
				testFile = fileURIInDir(sf.dir)
			}
			add(newCommand("Fuzz this test again", "goweave.fuzz_test", FuzzTestArgs{URI: testFile, Test: sf.Test}))
			if testFile == docURI {
				again[sf.Test] = true
			}
		}
	}
	automatic := params.Context.TriggerKind == protocol.CodeActionTriggerKindAutomatic
	actions = append(actions, s.cursorActions(docURI, params.Range, automatic, wanted, again)...)
	return actions, nil
}

// cursorActions are the campaign actions of a test file at rng, the code lenses'
// counterpart for clients without lenses. A test already offered "Fuzz this test again"
// by its diagnostic is not offered twice. Asked for automatically (a client's light bulb
// or margin hint as the cursor moves: kak-lsp's indicator, eglot's indications), they are
// offered only where the lenses stand, from `func` to the test's name and on the package
// clause, so that the hint does not sit on every line of a test file.
func (s *Server) cursorActions(docURI uri.URI, rng protocol.Range, automatic bool, wanted func(protocol.CodeActionKind) bool, again map[string]bool) []protocol.CommandOrCodeAction {
	if !wanted(kindFuzzTest) && !wanted(kindFuzzPackage) && !wanted(kindStop) {
		return nil
	}
	ts, ok := s.testSyntax(docURI)
	if !ok {
		return nil
	}
	start, err := offsetOf(ts.text, rng.Start)
	if err != nil {
		return nil
	}
	end, err := offsetOf(ts.text, rng.End)
	if err != nil {
		end = len(ts.text) // a selection to the line after the last
	}
	var actions []protocol.CommandOrCodeAction
	add := func(kind protocol.CodeActionKind, cmd protocol.Command) {
		if wanted(kind) {
			actions = append(actions, &protocol.CodeAction{Title: cmd.Title, Kind: &kind, Command: cmd})
		}
	}
	cp, running := s.campaigns.status(filepath.Dir(ts.path))
	for _, fn := range ts.tests {
		from, to := ts.offset(fn.Pos()), ts.offset(fn.End())
		if automatic {
			to = ts.offset(fn.Name.End())
		} else if fn.Doc != nil {
			from = ts.offset(fn.Doc.Pos())
		}
		if start > to || end < from {
			continue
		}
		name := fn.Name.Name
		if running && cp.req.test == name {
			add(kindStop, newCommand(titleStop+" "+name, "goweave.stop", StopArgs{URI: docURI}))
		} else if !again[name] {
			add(kindFuzzTest, newCommand(titleFuzzTest+" "+name, "goweave.fuzz_test", FuzzTestArgs{URI: docURI, Test: name}))
		}
		break
	}
	if automatic && (start > ts.offset(ts.file.Name.End()) || end < ts.offset(ts.file.Package)) {
		return actions
	}
	if running && cp.req.test == "" {
		add(kindStop, newCommand(titleStop+" the package", "goweave.stop", StopArgs{URI: docURI}))
	} else {
		add(kindFuzzPackage, newCommand(titleFuzzPackage, "goweave.fuzz_package", FuzzPackageArgs{URI: docURI}))
	}
	return actions
}

// codeActionsMarkdown documents the code actions, for COMMANDS.md.
func codeActionsMarkdown() string {
	var b strings.Builder
	b.WriteString("\n## Code actions\n\n")
	b.WriteString("`textDocument/codeAction` offers the commands above where they apply. The campaign actions are\n" +
		"what the code lenses offer, for clients that show no lenses (Helix, Kakoune's kak-lsp, Emacs eglot):\n" +
		"they are source actions, listed by clients that ask for code actions at the cursor without `only`\n" +
		"(Helix, kak-lsp, eglot, Neovim's `vim.lsp.buf.code_action()`), and by VS Code under \"Source Action...\"\n" +
		"rather than in its light bulb. A request whose `only` names none of an action's kind or its prefixes\n" +
		"(`source`, `source.goweave`) does not get it, so an on-save `source.organizeImports` never starts a\n" +
		"campaign. Asked for automatically (`triggerKind` 2: a light bulb or margin hint as the cursor moves,\n" +
		"as kak-lsp's and eglot's), they are offered only where the lenses stand: from `func` to the test's\n" +
		"name, and on the package clause. Titles are exact, `TestName` standing for the test function's name.\n\n")
	b.WriteString("| kind | title | where | runs |\n|---|---|---|---|\n")
	rows := [][4]string{
		{string(protocol.CodeActionKindQuickFix), "`Replay this bug`", "a goweave diagnostic in `context.diagnostics`", "`goweave.replay`"},
		{string(protocol.CodeActionKindQuickFix), "`Show timeline`", "a goweave diagnostic", "`goweave.show_timeline`"},
		{string(protocol.CodeActionKindQuickFix), "`Fuzz this test again`", "a goweave diagnostic found by a test", "`goweave.fuzz_test`"},
		{string(kindFuzzTest), "`" + titleFuzzTest + " TestName`", "a range in a test function of a `_test.go` file (doc comment, name, signature or body), unless its diagnostic offers \"Fuzz this test again\" or a campaign runs it", "`goweave.fuzz_test`"},
		{string(kindFuzzPackage), "`" + titleFuzzPackage + "`", "anywhere in a `_test.go` file, unless a campaign runs over the package", "`goweave.fuzz_package`"},
		{string(kindStop), "`" + titleStop + " TestName`", "in a test function while a campaign runs over that test", "`goweave.stop`"},
		{string(kindStop), "`" + titleStop + " the package`", "anywhere in a `_test.go` file while a campaign runs over the package", "`goweave.stop`"},
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", r[0], r[1], r[2], r[3])
	}
	return b.String()
}

// kindRequested reports whether a code action of kind passes the request's only filter:
// no filter, or a listed kind equal to kind or a prefix of it ("source" covers
// "source.goweave.fuzzTest").
func kindRequested(only []protocol.CodeActionKind, kind protocol.CodeActionKind) bool {
	if len(only) == 0 {
		return true
	}
	for _, k := range only {
		if k == kind || strings.HasPrefix(string(kind), string(k)+".") {
			return true
		}
	}
	return false
}
