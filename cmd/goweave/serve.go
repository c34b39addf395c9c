package main

import (
	"context"
	"errors"
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
		fmt.Fprintf(fs.Output(), "usage: goweave serve [flags]\n\n"+
			"Speaks the Language Server Protocol on stdin/stdout: fuzzes the tests of the packages\n"+
			"you open in the background and reports concurrency bugs as diagnostics. Editors start it;\n"+
			"see lsp/SETTINGS.md and lsp/COMMANDS.md for its settings and commands.\n\n")
		fs.PrintDefaults()
	}
	logfile := fs.String("logfile", "", "append the server's log to `file` (default: no log besides window/logMessage)")
	debugLog := fs.Bool("debug", false, "log debug messages too")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "goweave serve: unexpected arguments %q\n", fs.Args())
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
	if err := lsp.Serve(ctx, stdio{}, lsp.FuzzerEngine{}, opts...); err != nil && ctx.Err() == nil {
		fmt.Fprintf(os.Stderr, "goweave serve: %v\n", err)
		return 2
	}
	return 0
}

// stdio is the server's end of the connection: stdin and stdout.
type stdio struct{}

func (stdio) Read(p []byte) (int, error)  { return os.Stdin.Read(p) }
func (stdio) Write(p []byte) (int, error) { return os.Stdout.Write(p) }
func (stdio) Close() error                { return errors.Join(os.Stdin.Close(), os.Stdout.Close()) }
