package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/goweave/goweave/fuzzer"
)

// TestLifecycle: requests before initialize are refused, initialize advertises the
// command table, and nothing is accepted after shutdown but exit.
func TestLifecycle(t *testing.T) {
	se := startSession(t, &fakeEngine{})
	_, err := se.remote.CodeLens(se.ctx(), &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File("/x_test.go")}})
	var werr *jsonrpc2.Error
	if !errors.As(err, &werr) || werr.Code != codeServerNotInitialized {
		t.Fatalf("codeLens before initialize: %v, want ServerNotInitialized", err)
	}
	res, err := se.remote.Initialize(se.ctx(), &protocol.InitializeParams{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Capabilities.ExecuteCommandProvider.Commands, ","); got != strings.Join(CommandNames(), ",") ||
		!strings.Contains(got, "goweave.fuzz_test") || !strings.Contains(got, "goweave.show_timeline") {
		t.Errorf("advertised commands = %s", got)
	}
	sync, ok := res.Capabilities.TextDocumentSync.(*protocol.TextDocumentSyncOptions)
	if !ok || sync.Change == nil || *sync.Change != protocol.TextDocumentSyncKindIncremental {
		t.Errorf("text document sync = %#v, want incremental", res.Capabilities.TextDocumentSync)
	}
	if _, err := se.remote.Initialize(se.ctx(), &protocol.InitializeParams{}); err == nil {
		t.Errorf("second initialize accepted")
	}
	if err := se.remote.Shutdown(se.ctx()); err != nil {
		t.Fatal(err)
	}
	if _, err := se.execute("goweave.stop", StopArgs{}); err == nil {
		t.Errorf("command accepted after shutdown")
	}
	if err := se.remote.Exit(se.ctx()); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-se.served:
		se.closed = true
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after exit")
	}
}

// TestCommandArguments: unknown commands and bad arguments are clear errors.
func TestCommandArguments(t *testing.T) {
	dir, testFile := buggyPackage(t)
	se := newSession(t, &fakeEngine{}, sessionOption{root: dir, initOptions: map[string]any{"backgroundFuzzing": false}})
	for _, tc := range []struct {
		name string
		args []protocol.LSPAny
		want string
	}{
		{"goweave.nope", []protocol.LSPAny{[]byte(`{}`)}, `unknown command "goweave.nope"`},
		{"goweave.fuzz_test", nil, `goweave.fuzz_test takes one JSON object argument {"uri": string, "test": string}, got 0`},
		{"goweave.fuzz_test", []protocol.LSPAny{[]byte(`{"uri": 3}`)}, "goweave.fuzz_test: bad argument"},
		{"goweave.fuzz_test", []protocol.LSPAny{[]byte(`{"uri": "` + string(uri.File(testFile)) + `", "test": "helper"}`)}, `"helper" is not a test function name`},
		{"goweave.fuzz_test", []protocol.LSPAny{[]byte(`{"uri": "` + string(uri.File(testFile)) + `", "test": "TestSend", "extra": 1}`)}, `unknown field "extra"`},
		{"goweave.fuzz_package", []protocol.LSPAny{[]byte(`{}`)}, `missing "uri"`},
		{"goweave.replay", []protocol.LSPAny{[]byte(`{"id": "nope"}`)}, `no finding "nope"`},
		{"goweave.show_timeline", []protocol.LSPAny{[]byte(`{"id": "nope"}`)}, `no finding "nope"`},
	} {
		_, err := se.remote.ExecuteCommand(se.ctx(), &protocol.ExecuteCommandParams{Command: tc.name, Arguments: tc.args})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: error %v, want it to contain %q", tc.name, tc.args, err, tc.want)
		}
	}
	se.shutdown()
}

// TestShutdownStopsCampaigns: shutdown returns only after every campaign has ended
// (the engine's context cancelled, Fuzz returned).
func TestShutdownStopsCampaigns(t *testing.T) {
	baseline := runtime.NumGoroutine()
	dir, testFile := buggyPackage(t)
	started := make(chan fuzzer.Config, 1)
	engine := &fakeEngine{fuzz: blockingFuzz(started)}
	se := newSession(t, engine, sessionOption{caps: fullCaps(), root: dir})
	se.open(testFile) // background campaign
	<-started
	if err := se.remote.Shutdown(se.ctx()); err != nil {
		t.Fatal(err)
	}
	if calls, running, returned := engine.stats(); calls != 1 || running != 0 || returned != 1 {
		t.Errorf("after shutdown: %d campaigns started, %d running, %d returned", calls, running, returned)
	}
	if err := se.remote.Exit(se.ctx()); err != nil {
		t.Fatal(err)
	}
	<-se.served
	se.closed = true
	_ = se.conn.Close()
	// Every goroutine of the server (campaigns, connection, progress) is gone.
	waitFor(t, "the server's goroutines to end", func() bool { return runtime.NumGoroutine() <= baseline })
}

// rawConn writes LSP frames to a server and reads its replies.
type rawConn struct {
	t    *testing.T
	conn net.Conn
	in   *bufio.Reader
}

func (c *rawConn) send(body string) {
	c.t.Helper()
	if _, err := fmt.Fprintf(c.conn, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		c.t.Fatal(err)
	}
}

// read returns the next message from the server.
func (c *rawConn) read() (map[string]any, error) {
	length := 0
	for {
		line, err := c.in.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			fmt.Sscan(v, &length)
		}
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(c.in, body); err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("server sent bad JSON %q: %v", body, err)
	}
	return m, nil
}

func startRaw(t *testing.T, engine Engine) (*rawConn, chan error) {
	serverSide, clientSide := net.Pipe()
	served := make(chan error, 1)
	go func() { served <- Serve(context.Background(), serverSide, engine) }()
	c := &rawConn{t: t, conn: clientSide, in: bufio.NewReader(clientSide)}
	t.Cleanup(func() { clientSide.Close() })
	return c, served
}

// TestMalformedMessages: 1,000 malformed or out-of-order messages do not stop the
// server, which then works normally.
func TestMalformedMessages(t *testing.T) {
	c, served := startRaw(t, &fakeEngine{})
	replies := make(chan map[string]any, 4096)
	go func() {
		defer close(replies)
		for {
			m, err := c.read()
			if err != nil {
				return
			}
			replies <- m
		}
	}()
	rng := rand.New(rand.NewSource(1))
	bad := []string{
		`{`, `not json`, `[]`, `[1,2]`, `{"jsonrpc":"2.0"}`, `{"jsonrpc":"1.0","id":1,"method":"x"}`, `{"jsonrpc":"2.0","id":{},"method":"x"}`,
		`{"jsonrpc":"2.0","id":%d,"method":"textDocument/codeLens","params":{}}`,
		`{"jsonrpc":"2.0","id":%d,"method":"workspace/executeCommand","params":{"command":"goweave.stop","arguments":[{}]}}`,
		`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///nowhere_test.go","version":3},"contentChanges":[{"text":"x"}]}}`,
		`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":5}}`,
		`{"jsonrpc":"2.0","id":%d,"method":"no/such/method"}`,
		`{"jsonrpc":"2.0","method":"no/such/notification"}`,
		`{"jsonrpc":"2.0","id":%d,"result":{}}`,
		`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":"nonsense"}`,
		`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":12345}}`,
		`{"jsonrpc":"2.0","method":"exitt"}`,
		"\x00\xff\xfe",
	}
	id := 1000
	for i := 0; i < 1000; i++ {
		msg := bad[rng.Intn(len(bad))]
		if strings.Contains(msg, "%d") {
			id++
			msg = fmt.Sprintf(msg, id)
		}
		c.send(msg)
	}
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`)
	var init map[string]any
	deadline := time.After(20 * time.Second)
	for init == nil {
		select {
		case m, ok := <-replies:
			if !ok {
				t.Fatal("server closed the connection")
			}
			if m["id"] == float64(1) {
				init = m
			}
		case <-deadline:
			t.Fatal("no reply to initialize after the malformed messages")
		}
	}
	if init["result"] == nil {
		t.Fatalf("initialize after malformed messages: %v", init)
	}
	c.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)
	c.send(`{"jsonrpc":"2.0","method":"exit"}`)
	go func() {
		for range replies {
		}
	}()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Serve did not return after exit")
	}
}

// TestDidChangeOrdering: 10,000 didChange notifications then a request are handled
// in order: the request sees the last change and the versions never go back.
func TestDidChangeOrdering(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/order_test.go"
	const text = "package order\n\nimport \"testing\"\n\nfunc Test00000(t *testing.T) {}\n"
	write(t, path, text)
	se := newSession(t, &fakeEngine{}, sessionOption{root: dir, initOptions: map[string]any{"backgroundFuzzing": false}})
	se.open(path)
	const n = 10000
	for v := 1; v <= n; v++ {
		// Replace the 5 digits of the test name with the change's number.
		err := se.remote.DidChange(context.Background(), &protocol.DidChangeTextDocumentParams{
			TextDocument: protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri.File(path)}, Version: int32(v + 1)},
			ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{
				Range: protocol.Range{Start: protocol.Position{Line: 4, Character: 9}, End: protocol.Position{Line: 4, Character: 14}},
				Text:  fmt.Sprintf("%05d", v)}},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	lenses, err := se.remote.CodeLens(se.ctx(), &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(path)}})
	if err != nil {
		t.Fatal(err)
	}
	if got := lensTitles(lenses); len(got) != 2 || got[1] != "fuzz this test Test10000" {
		t.Fatalf("lenses after %d changes = %q", n, got)
	}
	_, version, _, _ := se.server.openText(path)
	if version != n+1 {
		t.Errorf("document version = %d, want %d", version, n+1)
	}
	se.client.mu.Lock()
	for _, l := range se.client.logged {
		if strings.Contains(l.Message, "version does not increase") {
			t.Errorf("out-of-order change: %s", l.Message)
		}
	}
	se.client.mu.Unlock()
	se.shutdown()
}

// TestMalformedFrameHeaders: frames with a missing, non-numeric, negative or oversized
// Content-Length, or a line that is no header field, are logged and skipped; the server
// resynchronises at the next Content-Length header (also when it follows a broken frame's
// body on the same line) and answers the requests after them.
func TestMalformedFrameHeaders(t *testing.T) {
	c, served := startRaw(t, &fakeEngine{})
	replies := make(chan map[string]any, 64)
	go func() {
		defer close(replies)
		for {
			m, err := c.read()
			if err != nil {
				return
			}
			replies <- m
		}
	}()
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`
	broken := []string{
		"Content-Length: abc\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"shutdown\"}",
		"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}",
		"this is not a header\r\n",
		"Content-Length: 99999999999\r\n\r\n",
		"Content-Length: -5\r\n\r\n{}",
		"content-length 12\r\n\r\n{}",
	}
	for _, b := range broken {
		if _, err := io.WriteString(c.conn, b); err != nil {
			t.Fatal(err)
		}
	}
	c.send(initialize)
	var warnings []string
	deadline := time.After(20 * time.Second)
	for init := false; !init; {
		select {
		case m, ok := <-replies:
			if !ok {
				t.Fatal("server closed the connection after malformed headers")
			}
			if m["method"] == "window/logMessage" {
				warnings = append(warnings, fmt.Sprint(m["params"].(map[string]any)["message"]))
			}
			if m["id"] == float64(7) {
				t.Errorf("a frame with a malformed header was handled: %v", m)
			}
			if m["id"] == float64(1) {
				if m["result"] == nil {
					t.Fatalf("initialize after malformed headers: %v", m)
				}
				init = true
			}
		case <-deadline:
			t.Fatal("no reply to initialize after malformed headers")
		}
	}
	// A resync skips every broken frame up to the next Content-Length, so one warning may
	// cover several of them.
	if len(warnings) == 0 {
		t.Error("malformed headers were not logged")
	}
	for _, w := range warnings {
		if !strings.Contains(w, "malformed LSP frame header") {
			t.Errorf("warning %q does not say what happened", w)
		}
	}
	c.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)
	c.send(`{"jsonrpc":"2.0","method":"exit"}`)
	go func() {
		for range replies {
		}
	}()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Serve did not return after exit")
	}
}
