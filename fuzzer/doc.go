// Package fuzzer owns running tests under the goweave runtime: it builds each package's
// test binary once, runs every selected test in its own process many times (recording a
// trace per run), analyzes the traces, steers later runs with schedule-mutation strategies,
// and deduplicates what it finds into a Report.
//
// Entry points: Fuzz (a campaign), Record (one recorded run per test, every trace kept),
// Replay (rerun a finding's test until the bug actually happens; a predicted one under the
// schedule that should make it happen), ReplayRecipe (what `goweave replay` runs), and the
// lower-level Build and TestBinary.Run.
//
// One file per concept:
//
//   - config.go, report.go, builderror.go: the public types;
//   - packages.go, build.go: resolving patterns (go list) and `go test -c -overlay` once per package;
//   - run.go, output.go, status.go: one test process (own process group, time limit enforced
//     from outside with SIGQUIT then SIGKILL, output capped head and tail, status from exit
//     code, output markers and the trace's META exit);
//   - campaign.go: the dispatcher (Parallel processes, tests side by side, budgets, a queue of
//     run requests per test, dedup by fingerprint keeping the earliest run and its trace);
//   - strategy.go, steer.go: the Strategy interface and its wiring to fuzzer/mutate;
//   - analyze.go, race.go: the analysis of a trace, and findings from -race reports;
//   - confirm.go: confirmation of predicted findings during a campaign (runs under the
//     rewrites of mutate.Confirm, judged by the positions of the bug they show);
//   - recipe.go, replay_recipe.go: a replay recipe per finding (<campaign>/findings/<id>.json:
//     schedule, test binary hash, hashes of the named source lines), FindRecipe, ReplayRecipe;
//   - replay.go, prune.go, fuzz.go: Replay, pruning of old campaign directories, Fuzz/Record;
//   - state.go: each test's campaign state, saved in OutDir/state and continued by the next
//     campaign of the same test binary (Config.Fresh starts over);
//   - runlog.go: the per-run log line (Config.Log, goweave fuzz -v).
//
// Data flows one way: fuzzer uses runtimepatch (the overlay), analysis/trace and analysis
// (reading and analyzing traces), fuzzer/schedule and fuzzer/mutate (what steered runs
// enforce). It knows nothing about how results are shown (lsp, cmd).
package fuzzer
