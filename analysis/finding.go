package analysis

// Confidence says how sure a finding is.
type Confidence string

const (
	// Actual: the bug happened in the recorded run.
	Actual Confidence = "actual"
	// Predicted: the happens-before relation of the run shows another schedule in which it happens.
	Predicted Confidence = "predicted"
	// Confirmed: a predicted bug that a replay made happen.
	Confirmed Confidence = "confirmed"
)

// Severity of a finding, as shown by editors.
type Severity string

const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// SeverityOf is the severity of a finding of kind with confidence c, the one rule the
// JSON, the SARIF and the editor all follow: a bug that happened (actual, or confirmed by
// a replay) is an error; a predicted one, and a hazard that describes a schedule-dependent
// risk rather than a failure, is a warning.
func SeverityOf(kind string, c Confidence) Severity {
	if c == Predicted || hazardOnly[kind] {
		return SeverityWarning
	}
	return SeverityError
}

// SeverityOfFinding is SeverityOf for f, lowered to a warning when f is test-only (a leak
// of the test's own goroutines, see TestOnly) or timing-dependent (Timing): the test, not
// the package, has the bug.
// Whoever recomputes a finding's severity (after a replay, on grouping) uses this one.
func SeverityOfFinding(f *Finding) Severity {
	if f.TestOnly || f.Timing != nil {
		return SeverityWarning
	}
	return SeverityOf(f.Kind, f.Confidence)
}

// hazardOnly are kinds whose actual findings describe a schedule-dependent hazard the run
// exhibited, not a failure: they are warnings even when actual.
var hazardOnly = map[string]bool{"concurrent-recv": true, "select-case-without-partner": true}

// Position is a source position with the role the operation there plays in a finding
// ("send", "close", "held lock", "blocked", "partner", ...). The first position of a
// Finding is the primary one.
type Position struct {
	Role   string `json:"role"`
	File   string `json:"file"` // absolute path
	Line   int    `json:"line"`
	Column int    `json:"column,omitempty"`
}

// Goroutine names a goroutine involved in a finding by its spawn site, which, unlike its
// number, is stable across runs.
type Goroutine struct {
	ID    uint64 `json:"id"`              // goid in the recorded run
	Spawn string `json:"spawn,omitempty"` // file:line of the go statement; empty for the test goroutine
}

// Finding is one concurrency bug reported by a detector. The JSON names are shared by
// `goweave analyze -json`, `goweave fuzz -json` and the language server.
type Finding struct {
	Kind        string      `json:"kind"` // a Detector name, e.g. "send-on-closed"
	Confidence  Confidence  `json:"confidence"`
	Severity    Severity    `json:"severity"`
	Message     string      `json:"message"`
	Package     string      `json:"package,omitempty"`
	Test        string      `json:"test,omitempty"`
	Fingerprint string      `json:"fingerprint"`
	Positions   []Position  `json:"positions"`
	Goroutines  []Goroutine `json:"goroutines,omitempty"`
	// TestOnly: a leak of the test's own goroutines, true but in the test, not in the
	// package's code (the leak detectors' rule, detect_leak.go testOnlyLeak).
	TestOnly bool `json:"test_only,omitempty"`
	// Timing: a flaky failure or panic that needed goweave's schedule to hold a goroutine
	// past the end of a wait bounded by the clock (timing.go); a warning, not a bug of the
	// module's synchronisation, and no exit status 1.
	Timing *Timing `json:"timing,omitempty"`
}
