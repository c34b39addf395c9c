// Package campaign owns a fuzzing campaign: it runs every selected test (built by
// fuzzer/build, each run a process of fuzzer/run) many times, analyzes the traces, steers
// later runs with schedule-mutation strategies and deduplicates what it finds into a Report.
//
// One file per concept:
//
//   - config.go, report.go, runlog.go: the public types (Config, Report, Finding, RunLog);
//   - fuzz.go: Fuzz, Record and the set-up of a campaign (defaults, builds, test selection);
//   - campaign.go: the dispatcher (Parallel processes, tests side by side, budgets, a queue
//     of run requests per test, dedup by fingerprint keeping the earliest run and its trace);
//   - collide.go: runs of one package that collide on a fixed resource (a port, a lock
//     file) when run at once: not evidence, and the package's runs go one at a time;
//   - rerun.go: the campaign loop for one test, as fuzzer/replay uses it;
//   - strategy.go, steer.go: the Strategy interface and its wiring to fuzzer/mutate;
//   - analyze.go, race.go: the analysis of a trace, and findings from -race reports;
//   - confirm.go: confirmation of predicted findings (runs under the rewrites of
//     mutate.Confirm, judged by the positions of the bug they show);
//   - recipe.go: a replay recipe per finding (<campaign>/findings/<id>.json: schedule,
//     test binary hash, hashes of the named source lines), LoadRecipe, FindRecipe;
//   - state.go: each test's campaign state, saved in OutDir/state and continued by the next
//     campaign of the same test binary (Config.Fresh starts over);
//   - prune.go: pruning of old campaign directories.
package campaign
