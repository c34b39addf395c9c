package campaign

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/goweave/goweave/fuzzer/run"
)

// The last backstop of "nothing is silent": a run that failed, panicked or crashed and of
// which no finding came (no detector, outcome, race or crash finding: crash.go leaves out a
// process ended by a signal, outcome.go a failure it finds no line for) is counted per
// test, and the report warns of it with how the first such run ended. Without it the
// report's JSON said "0 bugs" with nothing but a status count for such a test. Runs stopped
// at the time limit have their own warning (hangsLeftOut).

// silentRuns are a test's failing runs of which no finding came.
type silentRuns struct {
	count int
	first string // how the first of them ended
}

// note counts run ar when it failed and gave no finding.
func (s *silentRuns) note(ar *AnalyzedRun) {
	r := ar.Run
	if (r.Status != run.StatusFail && r.Status != run.StatusPanic && r.Status != run.StatusCrash) || len(ar.Findings) > 0 {
		return
	}
	s.count++
	if s.first == "" {
		s.first = runEnd(r)
	}
}

// signalLine is the first line of the Go runtime's dump of a process ended by a signal.
var signalLine = regexp.MustCompile(`(?m)^SIG[A-Z0-9]+: .*$`)

// runEnd says how r ended: its status and exit status, and its panic, fatal error, signal
// dump or last line of output.
func runEnd(r *run.Run) string {
	what := string(r.Status)
	if r.Signal != "" {
		what += ", signal " + r.Signal
	} else {
		what += fmt.Sprintf(", exit status %d", r.ExitCode)
	}
	var said string
	switch {
	case r.Panic != "":
		said = "panic: " + r.Panic
	case r.Fatal != "":
		said = "fatal error: " + r.Fatal
	case signalLine.MatchString(r.Output):
		said = signalLine.FindString(r.Output)
	default:
		lines := strings.Split(strings.TrimRight(r.Output, "\n"), "\n")
		said = strings.TrimSpace(lines[len(lines)-1])
	}
	if said != "" {
		what += fmt.Sprintf(": %q", capLine(said, 160))
	}
	return what
}

func capLine(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// silentWarnings are the report's warnings of the tests with failing runs no finding came
// from.
func (c *campaign) silentWarnings() []string {
	var out []string
	for _, t := range c.tests {
		if t.silent.count == 0 || t.bin == nil {
			continue
		}
		out = append(out, fmt.Sprintf("%s.%s: %d of its %d runs failed with nothing goweave could report of them (the first: %s); go test -run '^%s$' -count=20 shows the failure",
			t.bin.Package, t.name, t.silent.count, t.runs, t.silent.first, t.name))
	}
	return out
}
