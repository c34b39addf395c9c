package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/goweave/goweave/lsp"
)

func init() {
	register(command{name: "serve", summary: "run the goweave language server on stdin/stdout (LSP)", run: runServe})
}

func runServe(args []string) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: goweave serve [--stdio | --socket=PORT | --pipe=NAME] [flags]\n\n"+
			"Speaks the Language Server Protocol, on stdin/stdout unless a transport flag says\n"+
			"otherwise: fuzzes the tests of the packages you open in the background and reports\n"+
			"concurrency bugs as diagnostics. Editors start it; see lsp/SETTINGS.md and\n"+
			"lsp/COMMANDS.md for its settings and commands.\n\n")
		fs.PrintDefaults()
	}
	logfile := fs.String("logfile", "", "append the server's log to `file` (default: no log besides window/logMessage)")
	debugLog := fs.Bool("debug", false, "log debug messages too")
	var tf transportFlags
	fs.BoolVar(&tf.stdio, "stdio", false, "speak LSP on stdin/stdout (the default)")
	fs.StringVar(&tf.socket, "socket", "", "connect to the editor listening on TCP `port` of 127.0.0.1 (or host:port)")
	fs.StringVar(&tf.pipe, "pipe", "", "connect to the editor listening on the Unix socket `path`")
	fs.BoolVar(&tf.nodeIPC, "node-ipc", false, "not supported: the Node.js IPC channel of Node.js servers")
	fs.StringVar(&tf.clientID, "clientProcessId", "", "exit when the editor's process `pid` is gone")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "goweave serve: unexpected arguments %q\n", fs.Args())
		return 2
	}
	clientPID, err := tf.clientPID()
	if err != nil {
		fmt.Fprintf(os.Stderr, "goweave serve: %v\n", err)
		return 2
	}
	conn, err := tf.connect()
	if err != nil {
		fmt.Fprintf(os.Stderr, "goweave serve: %v\n", err)
		return 2
	}
	var opts []lsp.Option
	if *logfile != "" {
		f, err := os.OpenFile(*logfile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintf(os.Stderr, "goweave serve: %v\n", err)
			return 2
		}
		defer f.Close()
		level := slog.LevelInfo
		if *debugLog {
			level = slog.LevelDebug
		}
		opts = append(opts, lsp.WithLogger(slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: level}))))
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		lsp.Version = bi.Main.Version
	}
	// SIGINT/SIGTERM end the server like exit does: campaigns stop, their processes die.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if clientPID != 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		go stopWhenGone(ctx, clientPID, cancel)
	}
	if err := lsp.Serve(ctx, conn, lsp.FuzzerEngine{}, opts...); err != nil && ctx.Err() == nil {
		fmt.Fprintf(os.Stderr, "goweave serve: %v\n", err)
		return 2
	}
	return 0
}
