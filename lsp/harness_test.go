package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer"
)

// testClient is an in-process LSP client that records what the server sends.
type testClient struct {
	protocol.UnimplementedClient
	t testing.TB

	mu          sync.Mutex
	diagnostics map[uri.URI]*protocol.PublishDiagnosticsParams
	published   []*protocol.PublishDiagnosticsParams
	progress    []progressEvent
	created     []string
	shown       []protocol.ShowMessageParams
	logged      []protocol.LogMessageParams
	documents   []protocol.ShowDocumentParams
	refreshes   int
	// order records "report: <message>" for $/progress reports and "refresh" for
	// workspace/codeLens/refresh, in the order the client handled them.
	order []string
	// onRefresh, when set, runs (on its own goroutine) for each workspace/codeLens/refresh,
	// as an editor asks for the lenses of its open files then.
	onRefresh func()
}

type progressEvent struct {
	token string
	kind  string
	value map[string]any
}

func (c *testClient) PublishDiagnostics(ctx context.Context, p *protocol.PublishDiagnosticsParams) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.diagnostics[p.URI] = p
	c.published = append(c.published, p)
	return nil
}

func (c *testClient) Progress(ctx context.Context, p *protocol.ProgressParams) error {
	var v map[string]any
	if err := json.Unmarshal(p.Value, &v); err != nil {
		c.t.Errorf("$/progress value is not an object: %s", p.Value)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.progress = append(c.progress, progressEvent{token: fmt.Sprint(p.Token), kind: fmt.Sprint(v["kind"]), value: v})
	if v["kind"] == "report" {
		c.order = append(c.order, fmt.Sprintf("report: %v", v["message"]))
	}
	return nil
}

func (c *testClient) WorkDoneProgressCreate(ctx context.Context, p *protocol.WorkDoneProgressCreateParams) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.created = append(c.created, fmt.Sprint(p.Token))
	return nil
}

func (c *testClient) ShowMessage(ctx context.Context, p *protocol.ShowMessageParams) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.shown = append(c.shown, *p)
	return nil
}

func (c *testClient) LogMessage(ctx context.Context, p *protocol.LogMessageParams) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.logged = append(c.logged, *p)
	return nil
}

func (c *testClient) ShowDocument(ctx context.Context, p *protocol.ShowDocumentParams) (*protocol.ShowDocumentResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.documents = append(c.documents, *p)
	return &protocol.ShowDocumentResult{Success: true}, nil
}

func (c *testClient) CodeLensRefresh(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refreshes++
	c.order = append(c.order, "refresh")
	if c.onRefresh != nil {
		go c.onRefresh()
	}
	return nil
}

func (c *testClient) diagsOf(path string) (*protocol.PublishDiagnosticsParams, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.diagnostics[uri.File(path)]
	return p, ok
}

func (c *testClient) shownMessages() []protocol.ShowMessageParams {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]protocol.ShowMessageParams(nil), c.shown...)
}

func (c *testClient) progressEvents() []progressEvent {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]progressEvent(nil), c.progress...)
}

// session is a server and a client talking over a net.Pipe through real jsonrpc2
// connections.
type session struct {
	t      testing.TB
	server *Server
	client *testClient
	conn   jsonrpc2.Conn
	remote protocol.Server
	served chan error
	closed bool
	// requestTimeout bounds each request (default 20 s); the real engine builds test
	// binaries inside requests (replay), minutes on a cold cache and a loaded machine.
	requestTimeout time.Duration
}

type sessionOption struct {
	caps        protocol.ClientCapabilities
	initOptions any
	root        string
	serverOpts  []Option
}

// fullCaps are the capabilities of a client like VS Code.
func fullCaps() protocol.ClientCapabilities {
	yes := true
	return protocol.ClientCapabilities{
		Window: &protocol.WindowClientCapabilities{WorkDoneProgress: &yes, ShowDocument: &protocol.ShowDocumentClientCapabilities{Support: true}},
		TextDocument: &protocol.TextDocumentClientCapabilities{PublishDiagnostics: &protocol.PublishDiagnosticsClientCapabilities{
			DiagnosticsCapabilities: protocol.DiagnosticsCapabilities{RelatedInformation: &yes}}},
		Workspace: &protocol.WorkspaceClientCapabilities{CodeLens: &protocol.CodeLensWorkspaceClientCapabilities{RefreshSupport: &yes}},
	}
}

// startSession starts a server with engine and connects a test client, without
// initializing.
func startSession(t testing.TB, engine Engine, opts ...Option) *session {
	t.Helper()
	serverSide, clientSide := net.Pipe()
	ctx := context.Background()
	s := newServer(ctx, engine, append([]Option{WithTimelineDir(t.TempDir()), withLastCampaignDir(t.TempDir())}, opts...)...)
	se := &session{t: t, server: s, client: &testClient{t: t, diagnostics: map[uri.URI]*protocol.PublishDiagnosticsParams{}}, served: make(chan error, 1)}
	go func() { se.served <- s.serve(ctx, serverSide) }()
	se.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(clientSide), jsonrpc2.WithCodec(lspCodec{}))
	// Answer the server's requests off the read loop (like real clients, which read and
	// write independently): over the unbuffered net.Pipe, a read loop blocked writing a
	// response while the server's read loop is blocked writing to it would deadlock.
	// Notifications stay on the read loop, in order.
	handle := protocol.ClientHandler(se.client, jsonrpc2.MethodNotFoundHandler)
	se.conn.Go(ctx, func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.IsCall() {
			jsonrpc2.Async(ctx)
		}
		return handle(ctx, req)
	})
	se.remote = protocol.ServerDispatcher(se.conn)
	t.Cleanup(se.close)
	return se
}

// newSession starts and initializes a server over root.
func newSession(t testing.TB, engine Engine, o sessionOption) *session {
	t.Helper()
	se := startSession(t, engine, o.serverOpts...)
	params := &protocol.InitializeParams{Capabilities: o.caps}
	if o.root != "" {
		params.WorkspaceFolders = protocol.NewNullable([]protocol.WorkspaceFolder{{URI: uri.File(o.root), Name: "workspace"}})
	}
	if o.initOptions != nil {
		b, err := json.Marshal(o.initOptions)
		if err != nil {
			t.Fatal(err)
		}
		params.InitializationOptions = b
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := se.remote.Initialize(ctx, params); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if err := se.remote.Initialized(ctx, &protocol.InitializedParams{}); err != nil {
		t.Fatalf("initialized: %v", err)
	}
	return se
}

func (se *session) ctx() context.Context {
	limit := se.requestTimeout
	if limit == 0 {
		limit = 20 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	se.t.Cleanup(cancel)
	return ctx
}

// shutdown sends shutdown and exit and waits for Serve to return.
func (se *session) shutdown() {
	se.t.Helper()
	if err := se.remote.Shutdown(se.ctx()); err != nil {
		se.t.Errorf("shutdown: %v", err)
	}
	if err := se.remote.Exit(se.ctx()); err != nil {
		se.t.Errorf("exit: %v", err)
	}
	select {
	case err := <-se.served:
		se.closed = true
		if err != nil {
			se.t.Errorf("Serve returned %v", err)
		}
	case <-time.After(20 * time.Second):
		se.t.Fatal("Serve did not return after exit")
	}
	_ = se.conn.Close()
}

func (se *session) close() {
	if se.closed {
		return
	}
	_ = se.conn.Close()
	select {
	case <-se.served:
	case <-time.After(20 * time.Second):
		se.t.Error("Serve did not return after the connection closed")
	}
	se.closed = true
}

func (se *session) open(path string) {
	se.t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		se.t.Fatal(err)
	}
	err = se.remote.DidOpen(se.ctx(), &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: uri.File(path), LanguageID: "go", Version: 1, Text: string(text)}})
	if err != nil {
		se.t.Fatal(err)
	}
}

func (se *session) execute(name string, args any) (json.RawMessage, error) {
	b, err := json.Marshal(args)
	if err != nil {
		se.t.Fatal(err)
	}
	res, err := se.remote.ExecuteCommand(se.ctx(), &protocol.ExecuteCommandParams{Command: name, Arguments: []protocol.LSPAny{b}})
	return json.RawMessage(res), err
}

// waitFor polls cond until it holds or the test times out.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	waitUpTo(t, 20*time.Second, what, cond)
}

// waitUpTo is waitFor with another bound: the real engine's first campaign builds the
// patched runtime, minutes of CPU on a cold cache and a loaded machine.
func waitUpTo(t testing.TB, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// fakeEngine is a scripted Engine for tests of the protocol logic.
type fakeEngine struct {
	mu       sync.Mutex
	configs  []fuzzer.Config
	running  int
	returned int
	fuzz     func(ctx context.Context, cfg fuzzer.Config, progress func(fuzzer.Progress)) (*fuzzer.Report, error)
	replay   func(ctx context.Context, cfg fuzzer.Config, f fuzzer.Finding) (*ReplayResult, error)
}

func (e *fakeEngine) Fuzz(ctx context.Context, cfg fuzzer.Config, progress func(fuzzer.Progress)) (*fuzzer.Report, error) {
	e.mu.Lock()
	e.configs = append(e.configs, cfg)
	e.running++
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		e.running--
		e.returned++
		e.mu.Unlock()
	}()
	return e.fuzz(ctx, cfg, progress)
}

func (e *fakeEngine) Replay(ctx context.Context, cfg fuzzer.Config, f fuzzer.Finding) (*ReplayResult, error) {
	e.mu.Lock()
	replay := e.replay
	e.mu.Unlock()
	return replay(ctx, cfg, f)
}

func (e *fakeEngine) stats() (calls, running, returned int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.configs), e.running, e.returned
}

// reportOf is an engine script that reports progress and returns findings.
func reportOf(findings ...fuzzer.Finding) func(context.Context, fuzzer.Config, func(fuzzer.Progress)) (*fuzzer.Report, error) {
	return func(ctx context.Context, cfg fuzzer.Config, progress func(fuzzer.Progress)) (*fuzzer.Report, error) {
		progress(fuzzer.Progress{Package: "example.com/buggy", Test: "TestSend", TestsTotal: 1, Runs: 60, Findings: len(findings)})
		progress(fuzzer.Progress{Package: "example.com/buggy", TestsDone: 1, TestsTotal: 1, Runs: 120, Findings: len(findings), Done: true})
		return &fuzzer.Report{Findings: findings, Tests: []fuzzer.TestResult{{Package: "example.com/buggy", Test: "TestSend", Runs: 120, Status: "panic"}}}, nil
	}
}

// blockingFuzz reports progress and waits for cancellation, like a long campaign.
func blockingFuzz(started chan<- fuzzer.Config) func(context.Context, fuzzer.Config, func(fuzzer.Progress)) (*fuzzer.Report, error) {
	return func(ctx context.Context, cfg fuzzer.Config, progress func(fuzzer.Progress)) (*fuzzer.Report, error) {
		progress(fuzzer.Progress{Test: "TestSend", TestsTotal: 2, Runs: 120, Findings: 2})
		if started != nil {
			started <- cfg
		}
		<-ctx.Done()
		return &fuzzer.Report{}, ctx.Err()
	}
}

// buggyPackage writes a small package with a send-on-closed bug to a temporary
// directory and returns the test file's path.
func buggyPackage(t *testing.T) (dir, testFile string) {
	t.Helper()
	dir = t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), "module example.com/buggy\n\ngo 1.26\n")
	testFile = filepath.Join(dir, "buggy_test.go")
	write(t, testFile, buggySource)
	return dir, testFile
}

const buggySource = `package buggy

import (
	"sync"
	"testing"
)

func TestSend(t *testing.T) {
	c := make(chan int, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		c <- 1
	}()
	close(c)
	wg.Wait()
}

func TestOther(t *testing.T) {}

func helper(t *testing.T) {}
`

func write(t testing.TB, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// lineOf is the 1-based line of the first line of text containing s.
func lineOf(t *testing.T, text, s string) int {
	t.Helper()
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	t.Fatalf("no line contains %q", s)
	return 0
}

// sendOnClosed is a finding of buggySource: the send, and the close it races with.
func sendOnClosed(testFile string, confidence analysis.Confidence) fuzzer.Finding {
	return fuzzer.Finding{
		Finding: analysis.Finding{
			Kind: "send-on-closed", Confidence: confidence, Severity: analysis.SeverityError,
			Message: "send on closed channel", Package: "example.com/buggy", Test: "TestSend", Fingerprint: "fp1",
			Positions: []analysis.Position{
				{Role: "send", File: testFile, Line: 14},
				{Role: "close", File: testFile, Line: 16},
			},
		},
		ID: "f1a2", Run: 3, Strategy: "gopie", Trace: "/nonexistent/run3.trace",
	}
}

// rangeText is the text a single-line range covers.
func rangeText(t *testing.T, text string, r protocol.Range) string {
	t.Helper()
	if r.Start.Line != r.End.Line {
		t.Fatalf("range %v spans lines", r)
	}
	_, line, ok := lineAt(text, int(r.Start.Line)+1)
	if !ok || int(r.End.Character) > len(line) {
		t.Fatalf("range %v is outside the text", r)
	}
	return line[r.Start.Character:r.End.Character]
}

func mkdir(dir string) error { return os.MkdirAll(dir, 0o755) }
