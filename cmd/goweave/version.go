package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/goweave/goweave/runtimepatch"
)

func init() {
	register(command{name: "version", summary: "print goweave's version and the Go toolchain it would patch here", run: runVersion})
}

// version is goweave's release version, set by release builds:
// go build -ldflags "-X main.version=v1.2.3" ./cmd/goweave. `go install
// ...@v1.2.3` needs no flag: the module version comes from the build info.
var version = ""

// goweaveVersion is goweave's own version: the release version, else the
// module version from the build info, else "devel" with the VCS revision the
// binary was built from when the build recorded one.
func goweaveVersion(bi *debug.BuildInfo) string {
	if version != "" {
		return version
	}
	if bi == nil {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified == "true" {
		rev += "+dirty"
	}
	return "devel-" + rev
}

func runVersion(args []string) int {
	bi, _ := debug.ReadBuildInfo()
	dir, _ := os.Getwd()
	writeVersion(os.Stdout, bi, dir, func() (runtimepatch.Toolchain, error) {
		return runtimepatch.FindToolchain(context.Background(), dir)
	})
	return 0
}

// writeVersion prints goweave's version, the toolchain the go command uses
// in dir (the one goweave patches there) and whether goweave supports it.
func writeVersion(w io.Writer, bi *debug.BuildInfo, dir string, find func() (runtimepatch.Toolchain, error)) {
	fmt.Fprintf(w, "goweave %s (built with %s %s/%s)\n", goweaveVersion(bi), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	tc, err := find()
	if err != nil {
		fmt.Fprintf(w, "Go toolchain for %s: unknown: %v\n", dir, err)
		return
	}
	where := tc.GOROOT
	if modcache := tc.GOMODCACHE; modcache != "" && strings.HasPrefix(tc.GOROOT, modcache+string(os.PathSeparator)) {
		where += ", downloaded by the go command"
	}
	fmt.Fprintf(w, "Go toolchain for %s: %s %s/%s (%s)\n", dir, tc.GOVERSION, tc.GOOS, tc.GOARCH, where)
	if err := tc.Supported(); err != nil {
		fmt.Fprintf(w, "supported: no: %v\n", err)
		return
	}
	fmt.Fprintf(w, "supported: yes (goweave supports %s)\n", runtimepatch.SupportedVersions)
}
