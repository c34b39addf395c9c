// Package trace reads and writes goweave trace files (format version 1, specified in
// FORMAT.md next to this file): the events the patched runtime recorded in one process of a
// test binary, the source positions they refer to, and the final state of every goroutine.
//
// Read and ReadFile decode and validate a trace; corrupt or truncated input yields an error
// naming the byte offset, never a panic. Encode writes a Trace back in the same binary form,
// for hand-built traces in tests and tools.
package trace
