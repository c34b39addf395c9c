package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer"
	"github.com/goweave/goweave/fuzzer/replay"
)

func init() {
	register(command{name: "replay", summary: "replay a finding (confirm a predicted one) by its id or recipe file", run: runReplay})
}

// replayOutput is what `goweave replay -json` prints.
type replayOutput struct {
	ID         string          `json:"id"`
	Kind       string          `json:"kind"`
	Reproduced bool            `json:"reproduced"`
	Outcome    string          `json:"outcome"`
	Detail     string          `json:"detail,omitempty"`
	Runs       int             `json:"runs"`
	Status     string          `json:"status,omitempty"`
	Panic      string          `json:"panic,omitempty"`
	Fatal      string          `json:"fatal,omitempty"`
	Blocked    []string        `json:"blocked,omitempty"`
	Command    string          `json:"command,omitempty"`
	Finding    *fuzzer.Finding `json:"finding,omitempty"`
}

func runReplay(args []string) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: goweave replay [flags] <finding-id | recipe.json>\n\n"+
			"Rebuilds the test of a finding recorded by goweave fuzz and runs it under the finding's\n"+
			"schedule; a predicted finding runs under the schedule that should make it happen. Prints\n"+
			"the outcome, the panic or the blocked goroutines, and the command line that repeats the run.\n"+
			"Refuses to replay when the source changed since the finding was recorded.\n"+
			"Exit status: 1 the bug happened, 0 it did not, 2 errors (source changed included).\n\n")
		fs.PrintDefaults()
	}
	out := fs.String("o", "", "the output `dir` given to goweave fuzz (default: the user cache directory)")
	runs := fs.Int("runs", 3, "attempts at most")
	timeout := fs.Duration("timeout", 0, "time limit of each test process (default 10s)")
	force := fs.Bool("force", false, "replay even when the rebuilt test binary differs (the lines the schedule names must be unchanged)")
	asJSON := fs.Bool("json", false, "print the outcome as JSON")
	verbose := fs.Bool("v", false, "list every select preference of the schedule (default: the first 8)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	rec, path, err := resolveRecipe(fs.Arg(0), *out)
	if err != nil {
		fmt.Fprintf(os.Stderr, "goweave replay: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	base, err := replayBase(path, *out, rec)
	if err != nil {
		fmt.Fprintf(os.Stderr, "goweave replay: %v\n", err)
		return 2
	}
	res, err := fuzzer.ReplayRecipe(ctx, rec, fuzzer.ReplayOptions{Runs: *runs, RunTimeout: *timeout, Base: base, Force: *force})
	if err != nil {
		var sc *fuzzer.SourceChangedError
		if errors.As(err, &sc) {
			fmt.Fprintf(os.Stderr, "goweave replay: %s: not replayed: %v\n", rec.Finding.ID, err)
		} else {
			fmt.Fprintf(os.Stderr, "goweave replay: %v\n", err)
		}
		return 2
	}
	o := replayOutput{ID: rec.Finding.ID, Kind: rec.Finding.Kind, Reproduced: res.Reproduced, Outcome: res.Verdict.Outcome,
		Detail: res.Verdict.Detail, Runs: res.Runs, Blocked: res.Blocked, Command: res.Command, Finding: res.Finding}
	if res.Finding != nil {
		res.Finding.Severity = analysis.SeverityOfFinding(&res.Finding.Finding)
	}
	if r := res.Run; r != nil {
		o.Status, o.Panic, o.Fatal = string(r.Status), r.Panic, r.Fatal
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(o); err != nil {
			return 2
		}
	} else {
		printReplay(os.Stdout, rec, o, *verbose)
	}
	if res.Reproduced {
		return 1
	}
	return 0
}

// resolveRecipe loads the recipe named by arg: a recipe file, or a finding id looked up
// among the campaigns under outDir.
func resolveRecipe(arg, outDir string) (*fuzzer.Recipe, string, error) {
	path := arg
	if _, err := os.Stat(arg); err != nil {
		cwd, _ := os.Getwd()
		if path, err = fuzzer.FindRecipe(outDir, cwd, arg); err != nil {
			return nil, "", err
		}
	}
	rec, err := fuzzer.LoadRecipe(path)
	return rec, path, err
}

// replayBase is the directory whose replays/ receives a replay's binary, schedules and
// traces, never the source tree: the campaign directory of a recipe that lies in one
// (<campaign>/findings/ID.json), else -o, else the default output directory of the
// recipe's module (under the user cache directory).
func replayBase(recipePath, outDir string, rec *fuzzer.Recipe) (string, error) {
	abs, err := filepath.Abs(recipePath)
	if err != nil {
		return "", err
	}
	if filepath.Base(filepath.Dir(abs)) == "findings" {
		if _, err := os.Stat(filepath.Join(filepath.Dir(filepath.Dir(abs)), "report.json")); err == nil {
			return filepath.Dir(filepath.Dir(abs)), nil
		}
	}
	if outDir != "" {
		return filepath.Abs(outDir)
	}
	return fuzzer.DefaultOutDir(rec.Module)
}

// maxReplaySteering is how many select preferences goweave replay prints without -v.
const maxReplaySteering = 8

func printReplay(w io.Writer, rec *fuzzer.Recipe, o replayOutput, verbose bool) {
	cwd, _ := os.Getwd()
	f := rec.Finding
	where := "-"
	if len(f.Positions) > 0 {
		where = positionString(f.Positions[0], cwd)
	}
	fmt.Fprintf(w, "%s: %s (%s) at %s in %s.%s\n", f.ID, f.Kind, f.Confidence, where, rec.Package, rec.Test)
	schedules := []string{rec.Schedule}
	if rec.Finding.Confidence == analysis.Predicted && len(rec.Confirm) > 0 {
		schedules = rec.Confirm // what ReplayRecipe runs
	}
	// A recipe that replays a whole run prefers a case in every select the run executed:
	// the outcome, not hundreds of preference lines, is what the user came for.
	steering := replay.SelectSteering(schedules...)
	if !verbose {
		steering = replay.AtMost(steering, maxReplaySteering, "-v lists them")
	}
	for _, l := range steering {
		fmt.Fprintln(w, l)
	}
	verdict := "not reproduced"
	if o.Reproduced {
		verdict = "reproduced"
	}
	fmt.Fprintf(w, "%s in %d run(s): %s", verdict, o.Runs, o.Outcome)
	if o.Detail != "" {
		fmt.Fprintf(w, ": %s", o.Detail)
	}
	fmt.Fprintln(w)
	if o.Panic != "" {
		fmt.Fprintf(w, "panic: %s\n", o.Panic)
	} else if o.Fatal != "" {
		fmt.Fprintf(w, "fatal error: %s\n", o.Fatal)
	}
	if len(o.Blocked) > 0 {
		fmt.Fprintln(w, "blocked goroutines:")
		for _, b := range o.Blocked {
			fmt.Fprintf(w, "\t%s\n", b)
		}
	}
	if o.Command != "" {
		fmt.Fprintf(w, "run it again:\n\t%s\n", o.Command)
	}
}
