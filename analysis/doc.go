// Package analysis turns one recorded trace into findings: it computes the happens-before
// relation with vector clocks and runs one detector per bug kind over it.
//
// It knows nothing about how traces are produced (runtimepatch, fuzzer) or shown (lsp, cmd).
//
// Entry points:
//
//	r := analysis.Analyze(t)   // HB engine + every detector; r.Findings, sorted by position
//	r.SelectPartners()         // per select statement and case: chosen / possible partner
//	r.SelectPartnersByEvent()  // per executed select: non-chosen cases with a possible partner
//	r.ConcurrentPairs()        // concurrent same-object pairs (Once, TryLock, Lock, send, recv) for flow mutations
//	r.Clocks()                 // per-event vector clocks: HappensBefore(i, j), Concurrent(i, j)
//	analysis.Detectors         // the registry: Name (bug kind), Doc, Run
//
// The engine (hb.go, rules_*.go) walks the events in completion order with one rule per
// primitive and records the facts the detectors (detect_*.go) turn into findings. Traces for
// tests are built with the DSL of package analysis/trace/tracetest.
package analysis
