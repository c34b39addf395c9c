package lsp

import (
	"context"
	"errors"

	"github.com/goweave/goweave/fuzzer"
)

// Engine is what the server needs from the fuzzing engine. FuzzerEngine is the real
// one; tests of the protocol logic use a scripted engine.
type Engine interface {
	// Fuzz runs one campaign, as fuzzer.Fuzz.
	Fuzz(ctx context.Context, cfg fuzzer.Config, progress func(fuzzer.Progress)) (*fuzzer.Report, error)
	// Replay re-runs the recorded (or steered) schedule of the finding with the given id,
	// found by a campaign with configuration cfg, and says whether the bug happened.
	Replay(ctx context.Context, cfg fuzzer.Config, findingID string) (*ReplayResult, error)
}

// ReplayResult is the outcome of replaying a finding.
type ReplayResult struct {
	// Reproduced: the bug happened in the replayed run.
	Reproduced bool
	// Finding is the finding as observed in the replay (Confidence "confirmed" when
	// reproduced); nil when the replay did not observe it.
	Finding *fuzzer.Finding
	// Status is how the replayed run ended ("pass", "panic", "deadlock", ...).
	Status string
	// Panic is the panic or fatal error message of the replayed run, if any.
	Panic string
	// Blocked describes the goroutines left blocked at the end of the replayed run, one
	// line each ("goroutine 7 [chan send] at x_test.go:31").
	Blocked []string
}

// ErrReplayUnavailable is returned by FuzzerEngine.Replay until package fuzzer offers
// replay.
var ErrReplayUnavailable = errors.New("replay is not available in this build of goweave (package fuzzer has no Replay yet)")

// FuzzerEngine is the Engine over package fuzzer.
type FuzzerEngine struct{}

// Fuzz implements Engine.
func (FuzzerEngine) Fuzz(ctx context.Context, cfg fuzzer.Config, progress func(fuzzer.Progress)) (*fuzzer.Report, error) {
	return fuzzer.Fuzz(ctx, cfg, progress)
}

// Replay implements Engine.
func (FuzzerEngine) Replay(ctx context.Context, cfg fuzzer.Config, findingID string) (*ReplayResult, error) {
	return nil, ErrReplayUnavailable
}
