// Package fuzzer is the API lsp and cmd use to run tests under the goweave runtime: Fuzz
// (a campaign), Record (one recorded run per test, every trace kept), Replay and
// ReplayRecipe, with the types they take and return. It holds no logic: each name is an
// alias of, or a call into, the subpackage that owns it. A campaign's life, in the order
// data flows:
//
//   - fuzzer/build: resolve the package patterns (go list) and build each package's test
//     binary once with the goweave runtime (go test -c -overlay); build errors;
//   - fuzzer/run: one test process (own process group, time limit enforced from outside
//     with SIGQUIT then SIGKILL, output capped head and tail, race-detector environment,
//     status from exit code and output markers);
//   - fuzzer/campaign: the dispatcher (Parallel processes, budgets, a queue of run
//     requests per test), the analysis of each trace and -race report, the strategies and
//     their wiring to fuzzer/mutate, confirmation of predicted findings, dedup into a
//     Report, replay recipes per finding, the state saved for the next campaign, pruning
//     of old campaign directories;
//   - fuzzer/replay: rerunning a finding's test until the bug happens (Replay, under the
//     campaign loop) and replaying a recipe (ReplayRecipe, rebuild and check first);
//   - fuzzer/mutate and fuzzer/schedule: what steered runs enforce.
//
// Data flows one way: build <- run <- campaign <- replay <- fuzzer. The subpackages use
// runtimepatch (the overlay), analysis/trace and analysis; none knows how results are
// shown (lsp, cmd).
package fuzzer
