// Command goweave finds concurrency bugs in Go tests: it records test runs under a patched
// runtime, analyzes them with a happens-before analysis, fuzzes schedules, and serves the
// results to editors over LSP.
//
// Each subcommand lives in its own file and registers itself in commands.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"sort"
)

// A command is one goweave subcommand. run receives the arguments after the command name
// and returns the process exit code (0 ok, 1 findings, 2 error, by convention).
type command struct {
	name    string
	summary string
	run     func(args []string) int
}

var commands = map[string]command{}

func register(c command) { commands[c.name] = c }

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	name := os.Args[1]
	if name == "help" || name == "-h" || name == "--help" || name == "-help" {
		usage()
		return
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "goweave: unknown command %q\n\n", name)
		usage()
		os.Exit(2)
	}
	os.Exit(c.run(os.Args[2:]))
}

func usage() {
	fmt.Fprintf(os.Stderr, "usage: goweave <command> [arguments]\n\ncommands:\n")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(os.Stderr, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintf(os.Stderr, "\nRun 'goweave <command> -h' for a command's flags.\n")
}

// parseFlags parses a command's flags. ok is false when the command should stop with code:
// 0 after -h printed the usage (help is not an error), 2 after a bad flag.
func parseFlags(fs *flag.FlagSet, args []string) (code int, ok bool) {
	switch err := fs.Parse(args); {
	case err == nil:
		return 0, true
	case errors.Is(err, flag.ErrHelp):
		return 0, false
	}
	return 2, false
}
