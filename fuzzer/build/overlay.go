package build

import (
	"context"

	"github.com/goweave/goweave/runtimepatch"
)

// Overlay returns the goweave runtime's overlay (generated once per toolchain and cached)
// for the toolchain the go command uses in dir, for Options.Overlay.
func Overlay(ctx context.Context, dir string) (*runtimepatch.Overlay, error) {
	return runtimepatch.Prepare(ctx, dir)
}
