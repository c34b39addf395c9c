// Package analysis turns one recorded trace into findings: it computes the happens-before
// relation with vector clocks and runs one detector per bug kind over it.
//
// It knows nothing about how traces are produced (runtimepatch, fuzzer) or shown (lsp, cmd).
package analysis
