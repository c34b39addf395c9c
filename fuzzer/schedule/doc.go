// Package schedule owns the contract between the fuzzer and the patched runtime: what one run
// of a test should do differently (preferred select cases, delayed operations, an order in
// which operations are admitted), how that is written to the file the runtime reads at
// start-up (FORMAT.md), and how operations and goroutines are named so that a name from one
// recorded run means the same operation in the next run (logical goroutine ids, OpID).
//
// It reads recorded traces (analysis/trace) but knows nothing about how schedules are chosen
// (fuzzer/mutate) or how runs are started (fuzzer).
package schedule
