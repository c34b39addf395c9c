// Package lsp owns goweave's language server: the LSP connection, open documents,
// code lenses, code actions, commands, settings, progress reporting, and the mapping of
// findings to diagnostics at the exact source range of each concurrency operation.
//
// It schedules fuzzing campaigns through the Engine interface (FuzzerEngine is the real
// one, over package fuzzer) and knows nothing about how tests are built, run or analyzed.
// Serve runs the server over any byte stream (stdio for `goweave serve`).
package lsp
