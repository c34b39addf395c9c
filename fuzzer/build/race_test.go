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
