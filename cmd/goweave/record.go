package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/goweave/goweave/fuzzer"
)

func init() {
	register(command{name: "record", summary: "run each test once under the goweave runtime and keep its trace", run: runRecord})
}

func runRecord(args []string) int {
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: goweave record [flags] [packages]\n\n"+
			"Builds each package's test binary with the goweave runtime, runs every selected test once\n"+
			"in its own process and prints its status, the number of events recorded and the trace path.\n\n")
		fs.PrintDefaults()
	}
	run := fs.String("run", "", "run only tests matching `regexp`")
	out := fs.String("o", "", "write traces under `dir` (default: the user cache directory)")
	timeout := fs.Duration("timeout", 0, "time limit of each test process (default 10s)")
	race := fs.Bool("race", false, "build with the race detector")
	parallel := fs.Int("p", 0, "test processes at once (default: number of CPUs)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	patterns, runPattern, ok := testArgs("record", fs.Args(), *run)
	if !ok {
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	cfg := fuzzer.Config{Packages: patterns, Run: runPattern, OutDir: *out, RunTimeout: *timeout, Race: *race, Parallel: *parallel}
	missing, recorded := 0, 0
	err := fuzzer.Record(ctx, cfg, func(r *fuzzer.AnalyzedRun) {
		recorded++
		name := r.Package + "." + r.Test
		if r.TraceErr != nil {
			missing++
			fmt.Printf("%-8s %s  no trace: %v\n", r.Status, name, r.TraceErr)
			return
		}
		fmt.Printf("%-8s %s  %d events  %s\n", r.Status, name, r.Events, r.Trace)
	})
	code := 0
	if recorded == 0 && err == nil {
		fmt.Fprintln(os.Stderr, "goweave record: no tests to run (check the package patterns and -run)")
	}
	if err != nil {
		code = 2
		var be *fuzzer.BuildError
		for _, e := range flatten(err) {
			if errors.As(e, &be) {
				fmt.Fprintf(os.Stderr, "goweave: cannot build the tests of %s:\n%s", be.Package, be.Output)
			} else {
				fmt.Fprintf(os.Stderr, "goweave record: %v\n", e)
			}
		}
	}
	if missing > 0 {
		fmt.Fprintf(os.Stderr, "goweave record: %d test(s) left no readable trace\n", missing)
		code = 2
	}
	return code
}

// flatten lists the errors joined in err (errors.Join), or err itself.
func flatten(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, flatten(e)...)
		}
		return out
	}
	return []error{err}
}
