package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Argument types of the commands, one JSON object each.
type (
	// FuzzTestArgs selects one test function of the package containing URI.
	FuzzTestArgs struct {
		URI  uri.URI `json:"uri"`
		Test string  `json:"test"`
	}
	// FuzzPackageArgs selects the tests of the package containing URI.
	FuzzPackageArgs struct {
		URI uri.URI `json:"uri"`
	}
	// StopArgs selects the package containing URI; no URI means every package.
	StopArgs struct {
		URI uri.URI `json:"uri,omitempty"`
	}
	// ReplayArgs names a finding by its id (the data.id of its diagnostic).
	ReplayArgs struct {
		ID string `json:"id"`
	}
	// ClearArgs selects the package containing URI; no URI means every package.
	ClearArgs struct {
		URI uri.URI `json:"uri,omitempty"`
	}
	// ShowTimelineArgs names a finding by its id.
	ShowTimelineArgs struct {
		ID string `json:"id"`
	}
)

// A commandSpec is one row of the command table: the only place a command is declared.
// Dispatch, the executeCommandProvider list and COMMANDS.md derive from the table.
type commandSpec struct {
	Name  string
	Title string
	Doc   string
	Args  any // zero value of the argument struct, for the docs
	run   func(s *Server, ctx context.Context, raw []byte) (any, error)
}

// defineCommand ties a command's name to its typed argument struct and handler.
func defineCommand[A any](name, title, doc string, run func(s *Server, ctx context.Context, args *A) (any, error)) commandSpec {
	var zero A
	return commandSpec{Name: name, Title: title, Doc: doc, Args: zero,
		run: func(s *Server, ctx context.Context, raw []byte) (any, error) {
			args := new(A)
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.DisallowUnknownFields()
			if err := dec.Decode(args); err != nil {
				return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: bad argument %s: %v (want %s)", name, raw, err, argsShape(zero))
			}
			return run(s, ctx, args)
		}}
}

var commandTable = []commandSpec{
	defineCommand("goweave.fuzz_test", "fuzz this test",
		"Fuzz one test function of the package containing `uri`; findings become diagnostics.",
		(*Server).commandFuzzTest),
	defineCommand("goweave.fuzz_package", "fuzz package tests",
		"Fuzz every test of the package containing `uri`.",
		(*Server).commandFuzzPackage),
	defineCommand("goweave.stop", "stop",
		"Stop the campaigns of the package containing `uri`, or every campaign when `uri` is omitted; its test processes are killed.",
		(*Server).commandStop),
	defineCommand("goweave.replay", "Replay this bug",
		"Replay the schedule that found the finding `id`; reports whether the bug happened again and updates the diagnostic's confidence.",
		(*Server).commandReplay),
	defineCommand("goweave.clear", "clear findings",
		"Forget the findings (and diagnostics) of the package containing `uri`, or of every package when `uri` is omitted.",
		(*Server).commandClear),
	defineCommand("goweave.show_timeline", "Show timeline",
		"Write an HTML timeline of the run that found the finding `id` (one lane per goroutine); returns `{\"path\", \"uri\", \"opened\"}`. A client that declares the initialize capability `experimental.goweave.openTimeline: true` opens the page itself; others are asked to with `window/showDocument` (`opened` says whether they did).",
		(*Server).commandShowTimeline),
}

// CommandNames lists the commands the server executes, as advertised in initialize.
func CommandNames() []string {
	names := make([]string, len(commandTable))
	for i, c := range commandTable {
		names[i] = c.Name
	}
	return names
}

func lookupCommand(name string) (commandSpec, bool) {
	i := slices.IndexFunc(commandTable, func(c commandSpec) bool { return c.Name == name })
	if i < 0 {
		return commandSpec{}, false
	}
	return commandTable[i], true
}

// newCommand builds the protocol.Command that runs the named command with args.
func newCommand(title, name string, args any) protocol.Command {
	b, err := json.Marshal(args)
	if err != nil {
		panic(err) // argument structs always marshal
	}
	return protocol.Command{Title: title, Command: name, Arguments: []protocol.LSPAny{b}}
}

// ExecuteCommand implements the workspace/executeCommand request.
func (s *Server) ExecuteCommand(ctx context.Context, params *protocol.ExecuteCommandParams) (protocol.LSPAny, error) {
	c, ok := lookupCommand(params.Command)
	if !ok {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown command %q (goweave knows %s)", params.Command, strings.Join(CommandNames(), ", "))
	}
	if len(params.Arguments) != 1 {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s takes one JSON object argument %s, got %d arguments", c.Name, argsShape(c.Args), len(params.Arguments))
	}
	result, err := c.run(s, ctx, params.Arguments[0])
	if err != nil {
		s.logf(protocol.MessageTypeError, "%s: %v", c.Name, err)
		return nil, err
	}
	if result == nil {
		return nil, nil
	}
	b, err := json.Marshal(result)
	if err != nil {
		return nil, err
	}
	return protocol.LSPAny(b), nil
}

// argsShape shows an argument struct as the JSON object it expects, optional members
// marked with "?": {"uri": string, "test": string}.
func argsShape(zero any) string {
	t := reflect.TypeOf(zero)
	var fields []string
	for i := range t.NumField() {
		name, opts, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		q := fmt.Sprintf("%q", name)
		if opts == "omitempty" {
			q += "?"
		}
		fields = append(fields, q+": "+t.Field(i).Type.Kind().String())
	}
	return "{" + strings.Join(fields, ", ") + "}"
}

// CommandsMarkdown documents every command; lsp/COMMANDS.md holds its output.
func CommandsMarkdown() string {
	var b strings.Builder
	b.WriteString("## Commands\n\n")
	b.WriteString("Run with `workspace/executeCommand` and exactly one JSON object argument.\n\n")
	b.WriteString("The server builds and runs only packages inside its workspace folders (from `initialize` and\n" +
		"`workspace/didChangeWorkspaceFolders`, symbolic links resolved): `goweave.fuzz_test`, `goweave.fuzz_package`\n" +
		"and `goweave.replay` refuse anything else with an error, and nothing is built or run.\n\n")
	b.WriteString("| command | argument | description |\n|---|---|---|\n")
	for _, c := range commandTable {
		fmt.Fprintf(&b, "| `%s` | `%s` | %s |\n", c.Name, argsShape(c.Args), c.Doc)
	}
	b.WriteString(codeActionsMarkdown())
	b.WriteString(lastCampaignMarkdown())
	return b.String()
}

// packageDir is the directory of the package containing the file (or directory) u.
func packageDir(u uri.URI) (string, error) {
	if u == "" {
		return "", fmt.Errorf(`missing "uri"`)
	}
	if !u.IsFile() {
		return "", fmt.Errorf("%s is not a file URI", u)
	}
	path := filepath.Clean(u.FsPath())
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return path, nil
	}
	return filepath.Dir(path), nil
}

func fileURIInDir(dir string) uri.URI { return uri.File(dir) }

func (s *Server) commandFuzzTest(ctx context.Context, args *FuzzTestArgs) (any, error) {
	dir, err := s.workspacePackageDir(args.URI)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "goweave.fuzz_test: %v", err)
	}
	if !testFuncName.MatchString(args.Test) {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "goweave.fuzz_test: %q is not a test function name (TestXxx)", args.Test)
	}
	s.campaigns.request(campaignRequest{dir: dir, test: args.Test, reason: "requested"})
	return nil, nil
}

func (s *Server) commandFuzzPackage(ctx context.Context, args *FuzzPackageArgs) (any, error) {
	dir, err := s.workspacePackageDir(args.URI)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "goweave.fuzz_package: %v", err)
	}
	s.campaigns.request(campaignRequest{dir: dir, reason: "requested"})
	return nil, nil
}

// StopResult is the result of goweave.stop.
type StopResult struct {
	Stopped int `json:"stopped"` // campaigns stopped or unqueued
}

func (s *Server) commandStop(ctx context.Context, args *StopArgs) (any, error) {
	dir := ""
	if args.URI != "" {
		var err error
		if dir, err = packageDir(args.URI); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "goweave.stop: %v", err)
		}
	}
	return StopResult{Stopped: s.campaigns.cancel(dir, false)}, nil
}

func (s *Server) commandClear(ctx context.Context, args *ClearArgs) (any, error) {
	dir := ""
	if args.URI != "" {
		var err error
		if dir, err = packageDir(args.URI); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "goweave.clear: %v", err)
		}
	}
	s.publishAll(s.findings.clear(dir))
	return nil, nil
}

// runDetached runs f after releasing the connection's read loop, on a goroutine that
// shutdown waits for, and returns its result: for commands that run long or call back
// into the client.
func (s *Server) runDetached(ctx context.Context, what string, f func() (any, error)) (any, error) {
	jsonrpc2.Async(ctx)
	type outcome struct {
		v   any
		err error
	}
	done := make(chan outcome, 1)
	if !s.goBackground(what, func() {
		var o outcome
		defer func() {
			if r := recover(); r != nil {
				o.err = jsonrpc2.Errorf(jsonrpc2.InternalError, "goweave: %s crashed: %v (please report this bug)", what, r)
				s.logf(protocol.MessageTypeError, "%s crashed: %v", what, r)
			}
			done <- o
		}()
		o.v, o.err = f()
	}) {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "goweave: the server is shutting down")
	}
	o := <-done
	return o.v, o.err
}
