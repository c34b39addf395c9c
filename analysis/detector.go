package analysis

import (
	"slices"

	"github.com/goweave/goweave/analysis/trace"
)

// A Detector finds one kind of concurrency bug in the result of the happens-before
// analysis. Name is the bug kind (the vocabulary shared with the corpus and editors); the
// first sentence of Doc is its summary, the rest says why it matters and how it is
// typically fixed.
type Detector struct {
	Name string
	Doc  string
	Run  func(r *Result) []Finding
}

// Detectors is the registry: every bug kind goweave reports, in reporting order.
var Detectors = []*Detector{
	SendOnClosed,
	RecvOnClosed,
	CloseOfClosed,
	CloseOfNil,
	NegativeWaitGroup,
	UnlockOfUnlocked,
	ConcurrentRecv,
	SelectCaseWithoutPartner,
	LeakChan,
	LeakSelect,
	LeakMutex,
	LeakWaitGroup,
	LeakCond,
	LeakNilChan,
	CyclicDeadlock,
	MixedDeadlock,
	Deadlock,
	DataRace,
	LostUpdate,
	TestUsedAfterEnd,
	FailNowOffTest,
	UnjoinedGoroutine,
	FlakyPanic,
	FlakyFailure,
	Hang,
}

// Lookup returns the detector of a bug kind, or nil.
func Lookup(kind string) *Detector {
	for _, d := range Detectors {
		if d.Name == kind {
			return d
		}
	}
	return nil
}

// Analyze computes the happens-before relation of t and runs every detector. Findings
// with equal fingerprints are reported once (the first, so a bug that happened hides its
// own prediction).
func Analyze(t *trace.Trace) *Result {
	r := Compute(t)
	runDetectors(r)
	return r
}

// runDetectors runs every detector over r and keeps the findings to report.
func runDetectors(r *Result) {
	t := r.Trace
	seen := map[string]bool{}
	// With events lost (the recorder's buffer was full) the relation misses edges: what it
	// calls unordered may be ordered. Only what happened is reported then.
	incomplete := t.Meta["dropped"] != "" && t.Meta["dropped"] != "0"
	for _, d := range Detectors {
		for _, f := range d.Run(r) {
			if f.Kind == "" || seen[f.Fingerprint] {
				continue
			}
			if incomplete && (f.Confidence != Actual || hbDerived[f.Kind]) {
				continue
			}
			seen[f.Fingerprint] = true
			r.Findings = append(r.Findings, f)
		}
	}
	slices.SortStableFunc(r.Findings, func(a, b Finding) int {
		pa, pb := primary(a), primary(b)
		if pa.File != pb.File {
			if pa.File < pb.File {
				return -1
			}
			return 1
		}
		return pa.Line - pb.Line
	})
}

// hbDerived are the kinds whose "actual" findings still rest on the happens-before relation.
var hbDerived = map[string]bool{"concurrent-recv": true, "select-case-without-partner": true, "data-race": true}

func primary(f Finding) Position {
	if len(f.Positions) > 0 {
		return f.Positions[0]
	}
	return Position{}
}
