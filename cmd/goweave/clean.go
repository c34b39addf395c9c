package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/goweave/goweave/fuzzer"
)

func init() {
	register(command{name: "clean", summary: "remove the campaigns' traces, recipes and saved state", run: runClean})
}

func runClean(args []string) int {
	fs := flag.NewFlagSet("clean", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: goweave clean [-o dir]\n\n"+
			"Removes what goweave fuzz left for the module in the current directory: every campaign\n"+
			"directory (traces, replay recipes, kept test binaries) whose goweave process has ended,\n"+
			"and the saved test states, so that the next campaign starts over.\n\n")
		fs.PrintDefaults()
	}
	out := fs.String("o", "", "the output directory the campaigns used (default: the user cache directory)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "goweave clean: unexpected arguments %q\n", fs.Args())
		return 2
	}
	c, err := fuzzer.Clean(*out, ".")
	fmt.Printf("removed %d campaign(s) and the saved state: %.1f MB\n", c.Campaigns, float64(c.Bytes)/(1<<20))
	if c.InUse > 0 {
		fmt.Printf("left %d campaign(s) whose goweave is still running\n", c.InUse)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "goweave clean: %v\n", err)
		return 2
	}
	return 0
}
