package lsp

import (
	"context"
	"path/filepath"

	"go.lsp.dev/protocol"
)

// CodeAction implements textDocument/codeAction: on a goweave diagnostic, "Replay this
// bug", "Show timeline" and "Fuzz this test again".
func (s *Server) CodeAction(ctx context.Context, params *protocol.CodeActionParams) ([]protocol.CommandOrCodeAction, error) {
	actions := []protocol.CommandOrCodeAction{}
	docURI := params.TextDocument.URI
	seen := map[string]bool{}
	for _, d := range params.Context.Diagnostics {
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
		}
	}
	return actions, nil
}
