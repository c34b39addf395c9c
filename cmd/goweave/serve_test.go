package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
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
	cmd := exec.Command(buildGoweave(t), append([]string{"serve"}, args...)...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &lspProcess{t: t, cmd: cmd, in: in, out: bufio.NewReader(out), exited: make(chan error, 1)}
	go func() { p.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
		}
	})
	return p
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
