package fuzzer

import (
	"context"
	"errors"
)

// Fuzz runs a campaign: it builds the test binaries of cfg.Packages once, runs every test
// selected by cfg.Run and cfg.Shard repeatedly within its budget, analyzes each recorded
// trace and returns the distinct findings. progress, if not nil, is called from a single
// goroutine after every run and once at the end.
//
// A package that does not compile yields an error wrapping one *BuildError per failing
// package (use errors.As); the other packages are still fuzzed and the report returned
// alongside the error. Cancelling ctx stops all runs and
// returns the report so far together with ctx.Err().
func Fuzz(ctx context.Context, cfg Config, progress func(Progress)) (*Report, error) {
	return nil, errors.New("fuzzer.Fuzz: not implemented yet")
}
