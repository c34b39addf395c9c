package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// lspProcess is `goweave serve` driven by a plain stdio client: no LSP library, just
// Content-Length frames.
type lspProcess struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	exited chan error // receives cmd.Wait's result
}

func startServe(t *testing.T, args ...string) *lspProcess {
	t.Helper()
	p := startServeProcess(t, args...)
	in, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.in, p.out = in, bufio.NewReader(out)
	p.run()
	return p
}

// startServeProcess prepares `goweave serve args...`; run starts it.
func startServeProcess(t *testing.T, args ...string) *lspProcess {
	t.Helper()
	cmd := exec.Command(buildGoweave(t), append([]string{"serve"}, args...)...)
	return &lspProcess{t: t, cmd: cmd, exited: make(chan error, 1)}
}

func (p *lspProcess) run() {
	p.t.Helper()
	if err := p.cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	p.t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
		}
	})
}

func (p *lspProcess) send(msg string) {
	p.t.Helper()
	if _, err := fmt.Fprintf(p.in, "Content-Length: %d\r\n\r\n%s", len(msg), msg); err != nil {
		p.t.Fatal(err)
	}
}

// response reads messages until the response with id.
func (p *lspProcess) response(id int) map[string]any {
	p.t.Helper()
	for {
		length := 0
		for {
			line, err := p.out.ReadString('\n')
			if err != nil {
				p.t.Fatalf("reading from goweave serve: %v", err)
			}
			if line = strings.TrimSpace(line); line == "" {
				break
			}
			fmt.Sscanf(line, "Content-Length: %d", &length)
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(p.out, body); err != nil {
			p.t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			p.t.Fatalf("bad JSON from goweave serve: %q", body)
		}
		if m["id"] == float64(id) && m["method"] == nil {
			return m
		}
	}
}

func (p *lspProcess) wait() error {
	select {
	case err := <-p.exited:
		p.exited <- err // for the cleanup
		return err
	case <-time.After(20 * time.Second):
		p.t.Fatal("goweave serve did not exit")
		return nil
	}
}

// TestServeStdio: a plain stdio client initializes, gets the command list, has an
// unknown command rejected, shuts down and exits; the process ends with status 0.
func TestServeStdio(t *testing.T) {
	p := startServe(t, "-logfile", t.TempDir()+"/serve.log")
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{},"initializationOptions":{"backgroundFuzzing":false}}}`)
	init := p.response(1)
	caps := init["result"].(map[string]any)["capabilities"].(map[string]any)
	cmds := fmt.Sprint(caps["executeCommandProvider"].(map[string]any)["commands"])
	for _, want := range []string{"goweave.fuzz_test", "goweave.fuzz_package", "goweave.stop", "goweave.replay", "goweave.clear", "goweave.show_timeline"} {
		if !strings.Contains(cmds, want) {
			t.Errorf("commands %s lack %s", cmds, want)
		}
	}
	p.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"goweave.frobnicate","arguments":[{}]}}`)
	if r := p.response(2); r["error"] == nil || !strings.Contains(fmt.Sprint(r["error"]), "unknown command") {
		t.Errorf("unknown command: %v", r)
	}
	p.send(`{"jsonrpc":"2.0","id":3,"method":"shutdown"}`)
	if r := p.response(3); r["error"] != nil {
		t.Errorf("shutdown: %v", r)
	}
	p.send(`{"jsonrpc":"2.0","method":"exit"}`)
	if err := p.wait(); err != nil {
		t.Errorf("goweave serve exited with %v", err)
	}
}

// TestServeEOF: the server exits when its client goes away without exit.
func TestServeEOF(t *testing.T) {
	p := startServe(t)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`)
	p.response(1)
	p.in.Close()
	if err := p.wait(); err != nil {
		t.Errorf("goweave serve exited with %v after EOF", err)
	}
}

// initializeAndExit runs a short session: initialize, shutdown, exit; the server must end
// with status 0.
func (p *lspProcess) initializeAndExit() {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{},"initializationOptions":{"backgroundFuzzing":false}}}`)
	if r := p.response(1); r["result"] == nil {
		p.t.Errorf("initialize: %v", r)
	}
	p.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)
	p.response(2)
	p.send(`{"jsonrpc":"2.0","method":"exit"}`)
	if err := p.wait(); err != nil {
		p.t.Errorf("goweave serve exited with %v", err)
	}
}

// TestServeStdioFlag: vscode-languageclient starts `goweave serve --stdio` (TransportKind.stdio
// appends the flag); the server must accept it.
func TestServeStdioFlag(t *testing.T) {
	startServe(t, "--stdio").initializeAndExit()
}

// TestServeSocket: with --socket=PORT the client listens on 127.0.0.1:PORT and the server
// connects to it.
func TestServeSocket(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	serveOverListener(t, l, fmt.Sprintf("--socket=%d", port))
}

// TestServePipe: with --pipe=NAME the client listens on the Unix socket NAME.
func TestServePipe(t *testing.T) {
	name := filepath.Join(t.TempDir(), "lsp.sock")
	l, err := net.Listen("unix", name)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	serveOverListener(t, l, "--pipe="+name, "--clientProcessId="+strconv.Itoa(os.Getpid()))
}

func serveOverListener(t *testing.T, l net.Listener, args ...string) {
	p := startServeProcess(t, args...)
	var stderr strings.Builder
	p.cmd.Stderr = &stderr
	p.run()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			t.Error(err)
			close(accepted)
			return
		}
		accepted <- c
	}()
	var conn net.Conn
	select {
	case conn = <-accepted:
	case err := <-p.exited:
		t.Fatalf("goweave serve %s exited before connecting: %v; stderr: %s", args, err, stderr.String())
	}
	if conn == nil {
		t.FailNow()
	}
	defer conn.Close()
	p.in, p.out = conn, bufio.NewReader(conn)
	p.initializeAndExit()
}

// TestServeUnsupportedTransport: --node-ipc and conflicting or malformed transport flags end
// the server at once with status 2 and a message saying what to use instead.
func TestServeUnsupportedTransport(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--node-ipc"}, "--stdio"},
		{[]string{"--stdio", "--socket=1"}, "choose one transport"},
		{[]string{"--clientProcessId=abc"}, "positive number"},
	} {
		cmd := exec.Command(buildGoweave(t), append([]string{"serve"}, tc.args...)...)
		cmd.Stdin = strings.NewReader("")
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 {
			t.Errorf("serve %s: %v, want exit status 2", tc.args, err)
		}
		if !strings.Contains(string(out), tc.want) {
			t.Errorf("serve %s said %q, want it to mention %q", tc.args, out, tc.want)
		}
	}
}

// TestServeClientProcessGone: with --clientProcessId the server exits when that process
// dies, even though its connection stays open.
func TestServeClientProcessGone(t *testing.T) {
	editor := exec.Command("sleep", "1000")
	if err := editor.Start(); err != nil {
		t.Fatal(err)
	}
	p := startServe(t, "--stdio", "--clientProcessId="+strconv.Itoa(editor.Process.Pid))
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{},"initializationOptions":{"backgroundFuzzing":false}}}`)
	p.response(1)
	_ = editor.Process.Kill()
	_ = editor.Wait()
	if err := p.wait(); err != nil {
		t.Errorf("goweave serve exited with %v after its editor died", err)
	}
}

// TestServeMalformedHeader: a frame with a bad Content-Length does not end goweave serve;
// the next frame is answered.
func TestServeMalformedHeader(t *testing.T) {
	p := startServe(t, "--stdio")
	if _, err := io.WriteString(p.in, "Content-Length: twelve\r\n\r\n{}"); err != nil {
		t.Fatal(err)
	}
	p.initializeAndExit()
}
