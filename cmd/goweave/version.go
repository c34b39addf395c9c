package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

func init() {
	register(command{name: "version", summary: "print goweave's version and the Go it was built with", run: runVersion})
}

func runVersion(args []string) int {
	v := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		v = bi.Main.Version
	}
	fmt.Printf("goweave %s %s %s/%s\n", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return 0
}
