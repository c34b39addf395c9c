package build

import (
	"context"
	"strings"
	"testing"
)

// With cgo off, -race cannot build: RaceSupported says so and what to do.
func TestRaceSupportedNeedsCgo(t *testing.T) {
	t.Setenv("CGO_ENABLED", "0")
	ok, why := RaceSupported(context.Background(), t.TempDir(), nil)
	if ok || !strings.Contains(why, "CGO_ENABLED") {
		t.Errorf("CGO_ENABLED=0: ok %v, why %q", ok, why)
	}
}

// A target without the race detector is named.
func TestRaceSupportedTarget(t *testing.T) {
	t.Setenv("GOOS", "linux")
	t.Setenv("GOARCH", "386")
	ok, why := RaceSupported(context.Background(), t.TempDir(), nil)
	if ok || !strings.Contains(why, "linux/386") {
		t.Errorf("linux/386: ok %v, why %q", ok, why)
	}
}

// macOS builds -race without cgo (the go command allows it there): cgo off is no reason to
// refuse it, so a darwin user without Xcode's C compiler still gets -race.
func TestRaceSupportedDarwinWithoutCgo(t *testing.T) {
	for _, arch := range []string{"arm64", "amd64"} {
		t.Setenv("GOOS", "darwin")
		t.Setenv("GOARCH", arch)
		t.Setenv("CGO_ENABLED", "0")
		if ok, why := RaceSupported(context.Background(), t.TempDir(), nil); !ok {
			t.Errorf("darwin/%s, CGO_ENABLED=0: not supported: %s", arch, why)
		}
	}
}
