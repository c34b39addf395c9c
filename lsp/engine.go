package lsp

import (
	"context"

	"github.com/goweave/goweave/fuzzer"
)

// Engine is what the server needs from the fuzzing engine. FuzzerEngine is the real
// one; tests of the protocol logic use a scripted engine.
type Engine interface {
	// Fuzz runs one campaign, as fuzzer.Fuzz.
	Fuzz(ctx context.Context, cfg fuzzer.Config, progress func(fuzzer.Progress)) (*fuzzer.Report, error)
	// Replay runs the test of f again (under f's schedule when a steered run found it)
	// until the bug happens or cfg's budget is spent; cfg is the configuration of the
	// campaign that found f. As fuzzer.Replay.
	Replay(ctx context.Context, cfg fuzzer.Config, f fuzzer.Finding) (*ReplayResult, error)
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

// FuzzerEngine is the Engine over package fuzzer.
type FuzzerEngine struct{}

// Fuzz implements Engine.
func (FuzzerEngine) Fuzz(ctx context.Context, cfg fuzzer.Config, progress func(fuzzer.Progress)) (*fuzzer.Report, error) {
	return fuzzer.Fuzz(ctx, cfg, progress)
}

// Replay implements Engine.
func (FuzzerEngine) Replay(ctx context.Context, cfg fuzzer.Config, f fuzzer.Finding) (*ReplayResult, error) {
	res, err := fuzzer.Replay(ctx, cfg, f)
	if res == nil {
		return nil, err
	}
	out := &ReplayResult{Reproduced: res.Reproduced, Finding: res.Finding, Blocked: res.Blocked}
	if r := res.Run; r != nil {
		out.Status = string(r.Status)
		out.Panic = r.Panic
		if out.Panic == "" {
			out.Panic = r.Fatal
		}
	}
	return out, err
}
