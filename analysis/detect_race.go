package analysis

var DataRace = &Detector{
	Name: "data-race",
	Doc: `Two conflicting accesses to a program variable (at least one a write) that happens-before does not order, as reported by the race detector.

A data race makes the program's behaviour undefined: torn values, lost updates, stale reads.
goweave reports it from -race runs (the recorded trace holds no memory accesses, so this
detector itself finds nothing in a trace). Fix it by protecting the variable with a mutex,
using sync/atomic, or handing the value over through a channel.`,
	Run: func(r *Result) []Finding { return nil },
}
