package build

import (
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/goweave/goweave/runtimepatch"
)

// raceTargets are the GOOS/GOARCH pairs whose toolchain has the race detector (the go
// command's own list, cmd/internal/sys.RaceDetectorSupported, as of go1.26).
var raceTargets = map[string]bool{
	"linux/amd64": true, "linux/ppc64le": true, "linux/arm64": true, "linux/s390x": true,
	"linux/loong64": true, "freebsd/amd64": true, "netbsd/amd64": true, "darwin/amd64": true,
	"darwin/arm64": true, "windows/amd64": true,
}

// RaceSupported reports whether test binaries built in dir (with overlay's toolchain; nil:
// the go on PATH) can use -race: the target is one the race detector supports and cgo is
// enabled (-race needs it, except on macOS). When not, why says which and how to get it.
func RaceSupported(ctx context.Context, dir string, overlay *runtimepatch.Overlay) (ok bool, why string) {
	args := []string{"env", "GOOS", "GOARCH", "CGO_ENABLED"}
	cmd := exec.CommandContext(ctx, "go", args...)
	if overlay != nil {
		cmd = overlay.Command(ctx, args...)
	}
	InDir(cmd, dir)
	out, err := cmd.Output()
	if err != nil {
		return false, fmt.Sprintf("go env failed: %v", err)
	}
	f := strings.Fields(string(out))
	if len(f) != 3 {
		return false, fmt.Sprintf("go env printed %q", out)
	}
	target := f[0] + "/" + f[1]
	if !raceTargets[target] {
		return false, "the race detector does not support " + target
	}
	// On macOS the race detector needs no cgo (since Go 1.20 it calls the C library
	// without it): the go command builds -race with CGO_ENABLED=0 there.
	if f[2] != "1" && f[0] != "darwin" {
		return false, "-race needs cgo and CGO_ENABLED is 0 (set CGO_ENABLED=1 and install a C compiler)"
	}
	return true, ""
}
