package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/goweave/goweave/fuzzer"
)

func init() {
	register(command{name: "merge", summary: "merge the -json reports of sharded fuzz runs into one", run: runMerge})
}

// runMerge combines the reports of `goweave fuzz -json -shard i/n` runs (a CI matrix, an
// Indexed Job) into one: the tests of every shard, and each finding once (by fingerprint,
// the most confident first, then the one from the earliest run).
func runMerge(args []string) int {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	sarifPath := fs.String("sarif", "", "also write the merged findings as SARIF 2.1.0 to `file`")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: goweave merge [-sarif file] REPORT.json...\n\n"+
			"Prints the merged report as JSON. Exit status: 0 no findings (refuted predictions are hints),\n"+
			"1 findings, 2 errors (a shard's test that failed in every run included).\n\n")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	var reports []*fuzzer.Report
	for _, path := range fs.Args() {
		data, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "goweave merge: %v\n", err)
			return 2
		}
		var rep fuzzer.Report
		if err := json.Unmarshal(data, &rep); err != nil {
			fmt.Fprintf(os.Stderr, "goweave merge: %s is not a goweave fuzz -json report: %v\n", path, err)
			return 2
		}
		reports = append(reports, &rep)
	}
	merged := mergeReports(reports)
	normalizeSeverities(merged.Findings)
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(merged); err != nil {
		fmt.Fprintf(os.Stderr, "goweave merge: %v\n", err)
		return 2
	}
	if *sarifPath != "" {
		if err := writeSARIF(*sarifPath, merged.Findings); err != nil {
			fmt.Fprintf(os.Stderr, "goweave merge: writing SARIF: %v\n", err)
			return 2
		}
	}
	for _, e := range merged.Errors {
		fmt.Fprintf(os.Stderr, "goweave merge: error: %s\n", e)
	}
	if len(merged.Errors) > 0 {
		return 2 // a shard's test failed in every run
	}
	if gating(merged.Findings) {
		return 1
	}
	return 0
}

// confidenceRank orders confidences for merging: a confirmed finding beats the same
// finding seen happening, which beats its prediction.
var confidenceRank = map[string]int{"confirmed": 3, "actual": 2, "predicted": 1}

func mergeReports(reports []*fuzzer.Report) *fuzzer.Report {
	out := &fuzzer.Report{Findings: []fuzzer.Finding{}, Tests: []fuzzer.TestResult{}}
	index := map[string]int{}
	for _, rep := range reports {
		out.Tests = append(out.Tests, rep.Tests...)
		for _, f := range rep.Findings {
			i, seen := index[f.Fingerprint]
			if !seen {
				index[f.Fingerprint] = len(out.Findings)
				out.Findings = append(out.Findings, f)
				continue
			}
			old := out.Findings[i]
			better := confidenceRank[string(f.Confidence)] > confidenceRank[string(old.Confidence)] ||
				(f.Confidence == old.Confidence && f.Run < old.Run)
			unrefuted := f.Confidence == old.Confidence && (f.Refuted == "" || old.Refuted == "")
			if better {
				out.Findings[i] = f
			}
			if unrefuted {
				out.Findings[i].Refuted = "" // a shard's prediction that nothing refuted
			}
		}
		out.Warnings = append(out.Warnings, rep.Warnings...)
		out.Errors = append(out.Errors, rep.Errors...)
	}
	return out
}
