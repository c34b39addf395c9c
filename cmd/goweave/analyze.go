package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/goweave/goweave/analysis"
)

func init() {
	register(command{name: "analyze", summary: "report the concurrency bugs a recorded trace shows or predicts", run: runAnalyze})
}

func runAnalyze(args []string) int {
	return analyzeMain(args, os.Stdout, os.Stderr)
}

// analyzeMain is runAnalyze with its output streams, for tests.
func analyzeMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("analyze", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: goweave analyze [-json] [-kinds] [-analysis-memory MB] TRACE...\n\n"+
			"Runs the happens-before analysis over each recorded trace and reports every concurrency\n"+
			"bug that happened in the run and every one another schedule would show.\n"+
			"Exit status: 0 no findings, 1 findings, 2 error.\n\n")
		fs.PrintDefaults()
	}
	asJSON := fs.Bool("json", false, "print {\"findings\": [...]} as JSON")
	kinds := fs.Bool("kinds", false, "list the bug kinds and exit (as goweave kinds; goweave kinds KIND explains one)")
	memory := fs.Int64("analysis-memory", 0, "memory budget of one trace's analysis, in MB; past it that trace is not analyzed (0: a quarter of the machine's memory, at most 1 GB)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if *kinds {
		listKinds(stdout)
		return 0
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	cwd, _ := os.Getwd()
	findings := []analysis.Finding{}
	seen := map[string]bool{}
	failed := false
	for _, path := range fs.Args() {
		r, err := analysis.AnalyzeFile(path, analysis.Options{MemoryBudget: *memory << 20})
		if err != nil {
			fmt.Fprintf(stderr, "goweave analyze: %v\n", err)
			failed = true
			continue
		}
		if n := r.Trace.Meta["dropped"]; n != "" && n != "0" {
			fmt.Fprintf(stderr, "goweave analyze: %s: warning: the recorder dropped %s events (buffer full); the analysis is incomplete\n", path, n)
		}
		for _, f := range r.Findings {
			if !seen[f.Fingerprint] {
				seen[f.Fingerprint] = true
				findings = append(findings, f)
			}
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(struct {
			Findings []analysis.Finding `json:"findings"`
		}{findings})
	} else {
		for _, f := range findings {
			primary := analysis.Position{}
			if len(f.Positions) > 0 {
				primary = f.Positions[0]
			}
			fmt.Fprintf(stdout, "%s: %s: %s\n", positionString(primary, cwd), f.Kind, f.Message)
			for _, p := range f.Positions[min(1, len(f.Positions)):] {
				fmt.Fprintf(stdout, "\t%s: %s\n", positionString(p, cwd), p.Role)
			}
		}
	}
	switch {
	case failed:
		return 2
	case len(findings) > 0:
		return 1
	}
	return 0
}
