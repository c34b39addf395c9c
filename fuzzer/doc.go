// Package fuzzer owns running tests under the goweave runtime: it builds each package's
// test binary once, runs every selected test in its own process many times (recording a
// trace per run), analyzes the traces, steers later runs with schedule-mutation strategies,
// and deduplicates what it finds into a Report.
//
// The entry point is Fuzz. It knows nothing about how results are shown (lsp, cmd).
package fuzzer
