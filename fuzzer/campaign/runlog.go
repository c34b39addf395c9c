package campaign

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/goweave/goweave/fuzzer/run"
)

// A RunLog describes one finished run of a campaign: what steered it and what it found.
// Config.Log receives one per run (goweave fuzz -v prints them).
type RunLog struct {
	Test         TestID
	Run          int    // 1-based index of the run within its test
	Strategy     string // the strategy that proposed the run's schedule; "record" for a free run
	Note         string // what the schedule changed, when the strategy said
	Status       run.Status
	Steered      bool      // the runtime reports it enforced the schedule
	NewSignature bool      // the run's interleaving had not been seen before in this test
	New          []Finding // findings first seen in this run
	// Clock says, for a run in which a finding that can be timing-dependent happened (a
	// failure, a stuck test), whether its trace showed a wait by the clock expiring while a
	// goroutine was late (timing.go): the campaign's verdict needs it in every such run.
	Clock string
	// TraceCut says the recorder's buffer filled and how much was lost (tracecut.go).
	TraceCut string
	Err      error // why the run could not be made or its trace not read
}

// String formats the log line like
//
//	example.com/p.TestX run 4 flow (delay g2 Lock x.go:19 until g1 Lock x.go:25): pass, steered, new signature; new leak-mutex at x.go:19
func (l RunLog) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s.%s run %d %s", l.Test.Package, l.Test.Test, l.Run, l.Strategy)
	if l.Note != "" {
		fmt.Fprintf(&b, " (%s)", l.Note)
	}
	if l.Err != nil {
		fmt.Fprintf(&b, ": error: %v", l.Err)
		return b.String()
	}
	fmt.Fprintf(&b, ": %s", l.Status)
	if l.Steered {
		b.WriteString(", steered")
	}
	if l.NewSignature {
		b.WriteString(", new signature")
	}
	for i, f := range l.New {
		if i == 0 {
			b.WriteString("; new ")
		} else {
			b.WriteString(", ")
		}
		file, line, _ := primary(f)
		fmt.Fprintf(&b, "%s at %s:%d", f.Kind, filepath.Base(file), line)
	}
	if l.Clock != "" {
		fmt.Fprintf(&b, "; %s", l.Clock)
	}
	if l.TraceCut != "" {
		fmt.Fprintf(&b, "; %s", l.TraceCut)
	}
	return b.String()
}
