package build

import (
	"context"

	"github.com/goweave/goweave/runtimepatch"
)

// Overlay returns the -overlay file of the goweave runtime (generated once per toolchain
// and cached) for Options.Overlay.
func Overlay(ctx context.Context) (string, error) {
	o, err := runtimepatch.Prepare(ctx)
	if err != nil {
		return "", err
	}
	return o.Path, nil
}
