// Package clients checks goweave serve against the editor clients whose snippets live in
// editors/ (Helix, Emacs lsp-mode, kakoune-lsp, Sublime Text LSP): each client's own
// initialize request (testdata/*.json: captured from the real editor where it runs here,
// else transcribed from the client's source) is replayed against the real `goweave
// serve`, and a session does what the snippet relies on, as that client does it. A change
// of the server's capabilities or answers that breaks a snippet fails here.
package clients

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// A client's recorded initialize request and where it comes from.
type clientTrace struct {
	Client     string          `json:"client"`
	How        string          `json:"how"`
	Initialize json.RawMessage `json:"initialize"`
}

// What the clients declare that the snippets rely on.
type declared struct {
	Capabilities struct {
		TextDocument struct {
			CodeAction *struct {
				CodeActionLiteralSupport *json.RawMessage `json:"codeActionLiteralSupport"`
			} `json:"codeAction"`
			CodeLens           *json.RawMessage `json:"codeLens"`
			PublishDiagnostics *struct {
				RelatedInformation bool `json:"relatedInformation"`
			} `json:"publishDiagnostics"`
		} `json:"textDocument"`
		Window *struct {
			WorkDoneProgress bool `json:"workDoneProgress"`
		} `json:"window"`
	} `json:"capabilities"`
}

var goweaveBin string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	flag.Parse() // for testing.Short
	goweaveBin = os.Getenv("GOWEAVE_BIN")
	if goweaveBin == "" && !testing.Short() {
		dir, err := os.MkdirTemp("", "goweave-clients")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		goweaveBin = filepath.Join(dir, "goweave")
		build := exec.Command("go", "build", "-o", goweaveBin, "./cmd/goweave")
		build.Dir = filepath.Join("..", "..")
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "go build ./cmd/goweave: %v\n%s", err, out)
			return 1
		}
	}
	return m.Run()
}

// TestSnippetsAgree: each trace names the snippet it stands for, which exists and starts
// `goweave serve` beside gopls.
func TestSnippetsAgree(t *testing.T) {
	traces, err := filepath.Glob("testdata/*.json")
	if err != nil || len(traces) == 0 {
		t.Fatalf("no traces in testdata: %v", err)
	}
	for _, path := range traces {
		var tr clientTrace
		if b, err := os.ReadFile(path); err != nil || json.Unmarshal(b, &tr) != nil {
			t.Fatalf("%s: unreadable trace", path)
		}
		i := strings.Index(tr.Client, "editors/")
		if i < 0 {
			t.Errorf("%s: client %q names no snippet under editors/", path, tr.Client)
			continue
		}
		snippet := strings.Fields(tr.Client[i:])[0]
		b, err := os.ReadFile(filepath.Join("..", "..", snippet))
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if !bytes.Contains(b, []byte(`"serve"`)) || !bytes.Contains(b, []byte("gopls")) {
			t.Errorf("%s: does not start `goweave serve` or does not mention gopls", snippet)
		}
	}
}

func TestClientSessions(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a fuzzing campaign per client")
	}
	traces, err := filepath.Glob("testdata/*.json")
	if err != nil || len(traces) == 0 {
		t.Fatalf("no traces in testdata: %v", err)
	}
	for _, path := range traces {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".json"), func(t *testing.T) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var tr clientTrace
			if err := json.Unmarshal(b, &tr); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			t.Logf("%s (%s)", tr.Client, tr.How)
			session(t, tr)
		})
	}
}

// session replays one client: initialize with its own request, then "fuzz this test"
// as a code action on the test's name, the diagnostic, the replay code action, and the
// lens where the client has lenses.
func session(t *testing.T, tr clientTrace) {
	root := copyExamples(t)
	var params map[string]any
	if err := json.Unmarshal([]byte(strings.ReplaceAll(string(tr.Initialize), "${ROOT}", root)), &params); err != nil {
		t.Fatal(err)
	}
	var decl declared
	if err := json.Unmarshal([]byte(tr.Initialize), &decl); err != nil {
		t.Fatal(err)
	}
	// The snippet's settings stay; the test adds what keeps a campaign short and lets
	// nothing start on its own.
	opts, _ := params["initializationOptions"].(map[string]any)
	if opts == nil {
		opts = map[string]any{}
	}
	opts["backgroundFuzzing"] = false
	opts["race"] = false
	opts["runsPerTest"] = 5
	params["initializationOptions"] = opts

	c := startServer(t, root)
	var init struct {
		Capabilities struct {
			TextDocumentSync struct {
				OpenClose bool `json:"openClose"`
				Change    int  `json:"change"`
			} `json:"textDocumentSync"`
			CodeActionProvider     json.RawMessage `json:"codeActionProvider"`
			CodeLensProvider       json.RawMessage `json:"codeLensProvider"`
			ExecuteCommandProvider struct {
				Commands []string `json:"commands"`
			} `json:"executeCommandProvider"`
		} `json:"capabilities"`
	}
	c.call(t, "initialize", params, &init)
	caps := init.Capabilities
	if !caps.TextDocumentSync.OpenClose || caps.TextDocumentSync.Change == 0 {
		t.Errorf("textDocumentSync %+v: the clients send didOpen/didChange and need both", caps.TextDocumentSync)
	}
	if len(caps.CodeActionProvider) == 0 || string(caps.CodeActionProvider) == "false" {
		t.Fatalf("no codeActionProvider: the snippets' fuzz this test and replay are code actions")
	}
	for _, cmd := range []string{"goweave.fuzz_test", "goweave.fuzz_package", "goweave.replay", "goweave.stop"} {
		if !slices.Contains(caps.ExecuteCommandProvider.Commands, cmd) {
			t.Errorf("executeCommandProvider lacks %s (commands: %v)", cmd, caps.ExecuteCommandProvider.Commands)
		}
	}
	hasLenses := decl.Capabilities.TextDocument.CodeLens != nil
	if hasLenses && (len(caps.CodeLensProvider) == 0 || string(caps.CodeLensProvider) == "null") {
		t.Errorf("the client shows code lenses but the server has no codeLensProvider")
	}
	c.notify("initialized", map[string]any{})

	testFile := filepath.Join(root, "metrics", "metrics_test.go")
	srcFile := filepath.Join(root, "metrics", "metrics.go")
	testURI, srcURI := fileURI(testFile), fileURI(srcFile)
	text := readFile(t, testFile)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": testURI, "languageId": "go", "version": 1, "text": text}})

	// 1. "fuzz this test": a code action with the cursor on the test's name.
	const test = "TestWorkersReportToCollector"
	name := positionOf(t, text, test)
	var actions []codeAction
	c.call(t, "textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": testURI},
		"range":        map[string]any{"start": name, "end": name},
		"context":      map[string]any{"diagnostics": []any{}},
	}, &actions)
	fuzz := findAction(actions, "goweave.fuzz_test")
	if fuzz == nil {
		t.Fatalf("no goweave.fuzz_test code action on %s's name: %s", test, titles(actions))
	}
	var fuzzArgs []struct {
		Test string `json:"test"`
	}
	if err := json.Unmarshal(fuzz.Command.Arguments, &fuzzArgs); err != nil || len(fuzzArgs) != 1 || fuzzArgs[0].Test != test {
		t.Fatalf("fuzz this test action %q: arguments %s, want one naming %s", fuzz.Title, fuzz.Command.Arguments, test)
	}
	seenBefore := c.mark()
	c.call(t, "workspace/executeCommand", fuzz.Command, nil)

	// 2. The diagnostic, pushed.
	sendLine := lineOf(t, readFile(t, srcFile), "c.samples <- ")
	closeLine := lineOf(t, readFile(t, srcFile), "close(c.samples)")
	diag := c.waitDiagnostic(t, srcURI, sendLine)
	if diag.Range.End.Line == diag.Range.Start.Line && diag.Range.End.Character <= diag.Range.Start.Character {
		t.Errorf("diagnostic range %+v is empty", diag.Range)
	}
	if decl.Capabilities.TextDocument.PublishDiagnostics != nil && decl.Capabilities.TextDocument.PublishDiagnostics.RelatedInformation {
		if !slices.ContainsFunc(diag.RelatedInformation, func(r relatedInfo) bool { return r.Location.Range.Start.Line == closeLine }) {
			t.Errorf("the client shows related information but the diagnostic has none at the close (line %d): %+v", closeLine+1, diag.RelatedInformation)
		}
	} else if !strings.Contains(diag.Message, "metrics.go:"+strconv.Itoa(closeLine+1)) {
		t.Errorf("without related information the message must name the close's position: %q", diag.Message)
	}
	// Progress the way the client shows it.
	if decl.Capabilities.Window != nil && decl.Capabilities.Window.WorkDoneProgress {
		if !c.sawSince(seenBefore, "$/progress") {
			t.Errorf("the client shows $/progress but the campaign sent none")
		}
	}

	// 3. The replay: a code action on the diagnostic, then its command.
	raw, _ := json.Marshal(diag)
	c.call(t, "textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": srcURI},
		"range":        diag.Range,
		"context":      map[string]any{"diagnostics": []json.RawMessage{raw}},
	}, &actions)
	replay := findAction(actions, "goweave.replay")
	if replay == nil {
		t.Fatalf("no goweave.replay code action on the diagnostic: %s", titles(actions))
	}
	var result struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	c.call(t, "workspace/executeCommand", replay.Command, &result)
	if result.ID == "" || result.Status == "" {
		t.Errorf("replay result %+v: want the finding's id and the run's status", result)
	}

	// 4. The lens, for the clients that show lenses.
	if hasLenses {
		var lenses []struct {
			Command *command `json:"command"`
		}
		c.call(t, "textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": testURI}}, &lenses)
		if !slices.ContainsFunc(lenses, func(l struct {
			Command *command `json:"command"`
		}) bool {
			return l.Command != nil && l.Command.Command == "goweave.fuzz_test"
		}) {
			t.Errorf("no fuzz this test lens in %d lenses", len(lenses))
		}
	}
	c.call(t, "shutdown", nil, nil)
	c.notify("exit", nil)
}

type position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type lspRange struct {
	Start position `json:"start"`
	End   position `json:"end"`
}

type command struct {
	Title     string          `json:"title"`
	Command   string          `json:"command"`
	Arguments json.RawMessage `json:"arguments"`
}

// codeAction is a CodeAction literal: every client here declares codeActionLiteralSupport.
type codeAction struct {
	Title   string   `json:"title"`
	Kind    string   `json:"kind"`
	Command *command `json:"command"`
}

type relatedInfo struct {
	Location struct {
		URI   string   `json:"uri"`
		Range lspRange `json:"range"`
	} `json:"location"`
	Message string `json:"message"`
}

type diagnostic struct {
	Range              lspRange        `json:"range"`
	Severity           int             `json:"severity,omitempty"`
	Code               any             `json:"code,omitempty"`
	CodeDescription    any             `json:"codeDescription,omitempty"`
	Source             string          `json:"source"`
	Message            string          `json:"message"`
	RelatedInformation []relatedInfo   `json:"relatedInformation,omitempty"`
	Data               json.RawMessage `json:"data,omitempty"`
}

func findAction(actions []codeAction, cmd string) *codeAction {
	for i := range actions {
		if actions[i].Command != nil && actions[i].Command.Command == cmd {
			return &actions[i]
		}
	}
	return nil
}

func titles(actions []codeAction) string {
	var ts []string
	for _, a := range actions {
		ts = append(ts, fmt.Sprintf("%q", a.Title))
	}
	return fmt.Sprintf("%d actions [%s]", len(actions), strings.Join(ts, ", "))
}

func copyExamples(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "examples")
	src := filepath.Join("..", "..", "examples")
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(root, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(root, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func fileURI(path string) string { return "file://" + filepath.ToSlash(path) }

// lineOf is the 0-based line of text holding marker.
func lineOf(t *testing.T, text, marker string) int {
	t.Helper()
	i := strings.Index(text, marker)
	if i < 0 {
		t.Fatalf("no %q in the fixture", marker)
	}
	return strings.Count(text[:i], "\n")
}

// positionOf is the position of the first occurrence of word (ASCII text).
func positionOf(t *testing.T, text, word string) position {
	t.Helper()
	i := strings.Index(text, word)
	if i < 0 {
		t.Fatalf("no %q in the fixture", word)
	}
	line := strings.Count(text[:i], "\n")
	return position{Line: line, Character: i - (strings.LastIndex(text[:i], "\n") + 1)}
}

// conn is a minimal LSP client over the server's stdio: requests by id, the server's
// requests answered as the editors answer them, notifications kept in order.
type conn struct {
	w      io.Writer
	mu     sync.Mutex
	next   int
	calls  map[int]chan message
	notes  []message // notifications and server requests, in arrival order
	cond   *sync.Cond
	done   bool
	stderr *syncBuffer
}

// syncBuffer is the server's stderr, written by exec's copier and read by failing tests.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type message struct {
	ID     *json.RawMessage `json:"id,omitempty"`
	Method string           `json:"method,omitempty"`
	Params json.RawMessage  `json:"params,omitempty"`
	Result json.RawMessage  `json:"result,omitempty"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

func startServer(t *testing.T, dir string) *conn {
	t.Helper()
	cmd := exec.Command(goweaveBin, "serve")
	cmd.Dir = dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &conn{w: stdin, calls: map[int]chan message{}, stderr: &syncBuffer{}}
	c.cond = sync.NewCond(&c.mu)
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go c.read(bufio.NewReader(stdout))
	t.Cleanup(func() {
		stdin.Close()
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		select {
		case <-exited:
		case <-time.After(time.Minute): // a hang guard, not a timing assertion
			cmd.Process.Kill()
			<-exited
			t.Errorf("goweave serve did not exit after exit; stderr:\n%s", c.stderr)
		}
	})
	return c
}

func (c *conn) read(r *bufio.Reader) {
	defer func() {
		c.mu.Lock()
		c.done = true
		for _, ch := range c.calls {
			close(ch)
		}
		c.calls = map[int]chan message{}
		c.cond.Broadcast()
		c.mu.Unlock()
	}()
	for {
		length := -1
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
				length, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		if length < 0 {
			return
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		var m message
		if json.Unmarshal(body, &m) != nil {
			continue
		}
		if m.Method == "" && m.ID != nil { // a response
			id, _ := strconv.Atoi(string(*m.ID))
			c.mu.Lock()
			ch := c.calls[id]
			delete(c.calls, id)
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		if m.ID != nil { // a request from the server
			c.answer(m)
		}
		c.mu.Lock()
		c.notes = append(c.notes, m)
		c.cond.Broadcast()
		c.mu.Unlock()
	}
}

// answer replies to the server's requests as the editors do: progress tokens and
// registrations accepted, configuration unset, documents not shown.
func (c *conn) answer(m message) {
	var result any
	switch m.Method {
	case "workspace/configuration":
		var p struct {
			Items []any `json:"items"`
		}
		json.Unmarshal(m.Params, &p)
		result = make([]any, len(p.Items))
	case "window/showDocument":
		result = map[string]bool{"success": false}
	}
	c.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
}

func (c *conn) send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n%s", len(b), b)
}

func (c *conn) notify(method string, params any) {
	c.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// call sends a request and decodes its result into result (if not nil); an error
// response fails the test.
func (c *conn) call(t *testing.T, method string, params, result any) {
	t.Helper()
	ch := make(chan message, 1)
	c.mu.Lock()
	c.next++
	id := c.next
	c.calls[id] = ch
	c.mu.Unlock()
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	var m message
	var ok bool
	select {
	case m, ok = <-ch:
	case <-time.After(5 * time.Minute): // a hang guard, not a timing assertion
		t.Fatalf("%s: no response; server stderr:\n%s", method, c.stderr)
	}
	if !ok {
		t.Fatalf("%s: the server closed the connection; stderr:\n%s", method, c.stderr)
	}
	if m.Error != nil {
		t.Fatalf("%s: error %d: %s", method, m.Error.Code, m.Error.Message)
	}
	if result != nil {
		if err := json.Unmarshal(m.Result, result); err != nil {
			t.Fatalf("%s: result %s: %v", method, m.Result, err)
		}
	}
}

func (c *conn) mark() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.notes)
}

func (c *conn) sawSince(mark int, method string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.ContainsFunc(c.notes[mark:], func(m message) bool { return m.Method == method })
}

// waitDiagnostic waits for the newest publishDiagnostics of uri to hold goweave's
// diagnostic on line.
func (c *conn) waitDiagnostic(t *testing.T, uri string, line int) diagnostic {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute) // a hang guard, not a timing assertion
	timer := time.AfterFunc(time.Until(deadline), func() {
		c.mu.Lock()
		c.cond.Broadcast()
		c.mu.Unlock()
	})
	defer timer.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for seen := 0; ; {
		for ; seen < len(c.notes); seen++ {
			m := c.notes[seen]
			if m.Method == "window/showMessage" && bytes.Contains(m.Params, []byte(`"type":1`)) {
				t.Errorf("error message from the server: %s", m.Params)
			}
			if m.Method != "textDocument/publishDiagnostics" {
				continue
			}
			var p struct {
				URI         string       `json:"uri"`
				Diagnostics []diagnostic `json:"diagnostics"`
			}
			if json.Unmarshal(m.Params, &p) != nil || p.URI != uri {
				continue
			}
			for _, d := range p.Diagnostics {
				if d.Source == "goweave" && d.Range.Start.Line == line {
					return d
				}
			}
		}
		if c.done || time.Now().After(deadline) {
			t.Fatalf("no goweave diagnostic on %s:%d; server stderr:\n%s", uri, line+1, c.stderr)
		}
		c.cond.Wait()
	}
}

// TestTracesAreCurrent compares the traces captured from real editors with what those
// editors send now: .ci/clients.sh runs Helix and Emacs with a goweave that copies its
// input, and names the copies in GOWEAVE_CLIENT_CAPTURES ("helix=FILE emacs-lsp-mode=FILE").
// A client that changed what it declares fails here, so its trace gets captured again.
func TestTracesAreCurrent(t *testing.T) {
	captures := os.Getenv("GOWEAVE_CLIENT_CAPTURES")
	if captures == "" {
		t.Skip("GOWEAVE_CLIENT_CAPTURES not set (.ci/clients.sh sets it)")
	}
	for _, pair := range strings.Fields(captures) {
		name, file, ok := strings.Cut(pair, "=")
		if !ok {
			t.Fatalf("GOWEAVE_CLIENT_CAPTURES: %q is not NAME=FILE", pair)
		}
		t.Run(name, func(t *testing.T) {
			var tr clientTrace
			if b, err := os.ReadFile(filepath.Join("testdata", name+".json")); err != nil || json.Unmarshal(b, &tr) != nil {
				t.Fatalf("no trace testdata/%s.json", name)
			}
			now := firstParams(t, file)
			var kept map[string]json.RawMessage
			if err := json.Unmarshal(tr.Initialize, &kept); err != nil {
				t.Fatal(err)
			}
			for _, field := range []string{"capabilities", "initializationOptions"} {
				if !sameJSON(kept[field], now[field]) {
					t.Errorf("%s: %s changed:\nkept: %s\nnow:  %s", name, field, kept[field], now[field])
				}
			}
			var keptInfo, nowInfo struct {
				Name string `json:"name"`
			}
			json.Unmarshal(kept["clientInfo"], &keptInfo)
			json.Unmarshal(now["clientInfo"], &nowInfo)
			if keptInfo.Name != nowInfo.Name {
				t.Errorf("%s: clientInfo.name %q, now %q", name, keptInfo.Name, nowInfo.Name)
			}
		})
	}
}

// firstParams is the params of the first message in an LSP stream copied to file.
func firstParams(t *testing.T, file string) map[string]json.RawMessage {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := bufio.NewReader(f)
	length := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("%s: no complete LSP message: %v", file, err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
			length, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	body := make([]byte, max(length, 0))
	if _, err := io.ReadFull(r, body); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var m struct {
		Method string                     `json:"method"`
		Params map[string]json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(body, &m); err != nil || m.Method != "initialize" {
		t.Fatalf("%s: the first message is not initialize (%v): %.200s", file, err, body)
	}
	return m.Params
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return len(a) == 0 && len(b) == 0
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}
