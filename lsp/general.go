package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// clientCaps are the client capabilities the server adapts to.
type clientCaps struct {
	workDoneProgress   bool
	relatedInformation bool
	showDocument       bool
	codeLensRefresh    bool
	// openTimeline: the client opens timeline pages itself (experimental capability
	// goweave.openTimeline), so goweave.show_timeline only writes the page and returns it.
	openTimeline bool
}

func readClientCaps(c protocol.ClientCapabilities) clientCaps {
	var caps clientCaps
	if w := c.Window; w != nil {
		caps.workDoneProgress = w.WorkDoneProgress != nil && *w.WorkDoneProgress
		caps.showDocument = w.ShowDocument != nil && w.ShowDocument.Support
	}
	if td := c.TextDocument; td != nil && td.PublishDiagnostics != nil {
		caps.relatedInformation = td.PublishDiagnostics.RelatedInformation != nil && *td.PublishDiagnostics.RelatedInformation
	}
	if ws := c.Workspace; ws != nil && ws.CodeLens != nil {
		caps.codeLensRefresh = ws.CodeLens.RefreshSupport != nil && *ws.CodeLens.RefreshSupport
	}
	if len(c.Experimental) > 0 {
		var x struct {
			Goweave struct {
				OpenTimeline bool `json:"openTimeline"`
			} `json:"goweave"`
		}
		if json.Unmarshal(c.Experimental, &x) == nil {
			caps.openTimeline = x.Goweave.OpenTimeline
		}
	}
	return caps
}

// Initialize implements the initialize request.
func (s *Server) Initialize(ctx context.Context, params *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	s.mu.Lock()
	s.state = stateInitializing
	s.caps = readClientCaps(params.Capabilities)
	s.folders = initialFolders(params)
	problems := s.settings.Update(params.InitializationOptions)
	s.mu.Unlock()
	for _, p := range problems {
		s.tell(protocol.MessageTypeWarning, "%s", p)
	}

	yes := true
	incremental := protocol.TextDocumentSyncKindIncremental
	return &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			TextDocumentSync: &protocol.TextDocumentSyncOptions{
				OpenClose: &yes,
				Change:    &incremental,
				Save:      &protocol.SaveOptions{},
			},
			CodeLensProvider:   &protocol.CodeLensOptions{},
			CodeActionProvider: &protocol.CodeActionOptions{CodeActionKinds: codeActionKinds},
			ExecuteCommandProvider: protocol.ExecuteCommandOptions{
				Commands: CommandNames(),
			},
			Workspace: &protocol.WorkspaceOptions{
				WorkspaceFolders: &protocol.WorkspaceFoldersServerCapabilities{Supported: &yes, ChangeNotifications: protocol.Boolean(true)},
			},
		},
		ServerInfo: protocol.ServerInfo{Name: "goweave", Version: protocol.NewOptional(Version)},
	}, nil
}

// Version is reported to clients in serverInfo; cmd/goweave may set it.
var Version = "(devel)"

// Initialized implements the initialized notification.
func (s *Server) Initialized(ctx context.Context, params *protocol.InitializedParams) error {
	s.mu.Lock()
	s.state = stateInitialized
	s.mu.Unlock()
	return nil
}

// Shutdown implements the shutdown request: it stops every campaign and replay and
// waits until their test processes are gone.
func (s *Server) Shutdown(ctx context.Context) error {
	// Campaigns may be waiting for a client response (progress creation) that only
	// the read loop can deliver, so leave the read loop before waiting for them.
	jsonrpc2.Async(ctx)
	s.mu.Lock()
	s.state = stateShutdown
	s.mu.Unlock()
	s.stopEverything()
	s.work.Wait()
	return nil
}

// Exit implements the exit notification; Serve returns after it.
func (s *Server) Exit(ctx context.Context) error {
	s.stopEverything()
	s.exitMu.Do(func() { close(s.exited) })
	return nil
}

// DidChangeConfiguration implements workspace/didChangeConfiguration.
func (s *Server) DidChangeConfiguration(ctx context.Context, params *protocol.DidChangeConfigurationParams) error {
	s.mu.Lock()
	problems := s.settings.Update(params.Settings)
	s.mu.Unlock()
	for _, p := range problems {
		s.tell(protocol.MessageTypeWarning, "%s", p)
	}
	s.campaigns.settingsChanged()
	return nil
}

func (s *Server) currentSettings() Settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings
}
