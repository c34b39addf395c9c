package campaign

import (
	"fmt"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace"
)

// Timing-dependent failures (analysis/timing.go). Each failing run whose trace shows a wait
// bounded by the clock expiring while the schedule held another goroutine carries that
// evidence on its findings of a kind that can need it (analysis.TimingFor: a flaky failure
// or panic; a deadlock or a send or close on a closed channel of the test's own goroutines,
// ordered by the test's sleeps); the campaign reports the finding as timing-dependent
// (Finding.Timing: a warning, no exit status 1) only when every run in which it happened
// showed such evidence, so a failure that also happens without a long hold (in a free run,
// or under a schedule that held nothing past a wait) stays a bug. The evidence itself links
// the hold to the wait (the held operation's object is one the waiting goroutine uses).

// timingKind reports whether findings of kind can be timing-dependent.
func timingKind(kind string) bool { return analysis.TimingKind(kind) }

// attachTiming gives the findings of ar the timing evidence of its trace tr.
func attachTiming(ar *AnalyzedRun, tr *trace.Trace) {
	for i := range ar.Findings {
		if f := &ar.Findings[i]; timingKind(f.Kind) {
			f.Timing = analysis.TimingFor(tr, &f.Finding)
		}
	}
}

// clockNote says for the run log (RunLog.Clock) whether ar's findings that happened and can be
// timing-dependent carried the clock's evidence: "" when it has none of them.
func clockNote(ar *AnalyzedRun) string {
	note := ""
	for i := range ar.Findings {
		f := &ar.Findings[i]
		if !timingKind(f.Kind) || f.Confidence == analysis.Predicted {
			continue
		}
		if f.Timing != nil {
			return "timing: " + f.Timing.Summary()
		}
		note = "no timing evidence"
	}
	return note
}

// timingOf is the timing evidence of f, a bug's cause, when the campaign's runs show that
// f needed it: every run of its test in which f happened showed it (noteSeen). nil
// otherwise; a finding of an earlier campaign that this one did not see happen keeps that
// campaign's verdict (result saves it).
func (c *campaign) timingOf(f Finding) *analysis.Timing {
	if !timingKind(f.Kind) {
		return nil
	}
	t := c.ranTest(f)
	var s *seenRuns
	if t != nil {
		s = t.seen[f.Fingerprint]
	}
	if s == nil || s.happened.count() == 0 {
		if f.Earlier {
			return f.Timing
		}
		return nil
	}
	if s.timing == nil || !s.happened.equal(s.timed) {
		return nil
	}
	tm := *s.timing
	tm.Runs = s.timed.count()
	return &tm
}

// markTiming makes f, a grouped bug, timing-dependent with tm: the message says so and the
// wait and the held operation are among its positions.
func markTiming(f *Finding, tm *analysis.Timing, at map[string]bool) {
	f.Timing = tm
	f.Message += "; timing-dependent: " + tm.Summary()
	wait, held := "timing: "+tm.Wait+" expired", fmt.Sprintf("timing: held %.0f ms by the schedule", tm.DelayedMs)
	switch {
	case tm.WaitKind == "clock":
		wait = "timing: " + tm.Wait
	case tm.Partner != nil:
		held = "timing: kept by the schedule from a ready partner"
	}
	if tm.Late {
		held = fmt.Sprintf("timing: late %.0f ms or more (not held by the schedule)", tm.DelayedMs)
	}
	positions := []analysis.Position{
		{Role: wait, File: tm.At.File, Line: tm.At.Line},
		{Role: held, File: tm.HeldAt.File, Line: tm.HeldAt.Line},
	}
	if tm.Partner != nil {
		positions = append(positions, analysis.Position{Role: "timing: the ready partner", File: tm.Partner.File, Line: tm.Partner.Line})
	}
	for _, p := range positions {
		key := fmt.Sprintf("%s:%d", p.File, p.Line)
		if at[key] {
			continue
		}
		at[key] = true
		p.Column = analysis.LineColumn(p.File, p.Line)
		f.Positions = append(f.Positions, p)
	}
}

// timingCount counts the timing-dependent findings of fs.
func timingCount(fs []Finding) int {
	n := 0
	for i := range fs {
		if fs[i].Timing != nil {
			n++
		}
	}
	return n
}
