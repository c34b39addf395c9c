package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"time"
)

// LSP clients pick the transport and tell the server with the flags below; vscode-languageclient
// appends them to the command it was given (`goweave serve --stdio`, `--pipe=NAME`,
// `--socket=PORT`, `--node-ipc`) and adds `--clientProcessId=PID`. These are the
// conventions of vscode-languageserver, which other clients copy.

// transportFlags holds the transport flags as parsed.
type transportFlags struct {
	stdio    bool
	nodeIPC  bool
	socket   string // a TCP port on 127.0.0.1 (or host:port) the client listens on
	pipe     string // a Unix socket path (a named pipe on Windows) the client listens on
	clientID string // the client's process id; the server exits when it is gone
}

// connect opens the server's end of the connection the flags ask for.
func (f transportFlags) connect() (io.ReadWriteCloser, error) {
	chosen := 0
	for _, set := range []bool{f.stdio, f.nodeIPC, f.socket != "", f.pipe != ""} {
		if set {
			chosen++
		}
	}
	if chosen > 1 {
		return nil, errors.New("choose one transport: --stdio, --socket=PORT or --pipe=NAME")
	}
	switch {
	case f.nodeIPC:
		return nil, errors.New("--node-ipc is the Node.js IPC channel, which only Node.js servers can speak; " +
			"start goweave serve with --stdio (the default), --socket=PORT or --pipe=NAME")
	case f.socket != "":
		addr := f.socket
		if _, err := strconv.Atoi(addr); err == nil {
			addr = net.JoinHostPort("127.0.0.1", addr)
		}
		return dialClient("tcp", addr)
	case f.pipe != "":
		return dialClient("unix", f.pipe)
	}
	return stdio{}, nil
}

// dialClient connects to the client, which listens before it starts the server.
func dialClient(network, addr string) (io.ReadWriteCloser, error) {
	c, err := net.DialTimeout(network, addr, 30*time.Second)
	if err != nil {
		return nil, fmt.Errorf("cannot connect to the editor at %s: %w", addr, err)
	}
	return c, nil
}

// clientPID parses --clientProcessId; 0 means not given.
func (f transportFlags) clientPID() (int, error) {
	if f.clientID == "" {
		return 0, nil
	}
	pid, err := strconv.Atoi(f.clientID)
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("--clientProcessId=%s: want the editor's process id, a positive number", f.clientID)
	}
	return pid, nil
}

// stopWhenGone cancels when process pid no longer exists, as LSP asks of a server whose
// client died without closing the connection (a crashed editor leaves a server behind
// otherwise). Processes cannot be waited for unless they are children, so it polls.
func stopWhenGone(ctx context.Context, pid int, cancel context.CancelFunc) {
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if !processAlive(pid) {
				fmt.Fprintf(os.Stderr, "goweave serve: the editor (process %d) is gone; exiting\n", pid)
				cancel()
				return
			}
		}
	}
}

// stdio is the server's end of the default connection: stdin and stdout.
type stdio struct{}

func (stdio) Read(p []byte) (int, error)  { return os.Stdin.Read(p) }
func (stdio) Write(p []byte) (int, error) { return os.Stdout.Write(p) }
func (stdio) Close() error                { return errors.Join(os.Stdin.Close(), os.Stdout.Close()) }
