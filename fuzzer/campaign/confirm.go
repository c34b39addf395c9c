package campaign

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/mutate"
	"github.com/goweave/goweave/fuzzer/run"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// Confirmation of predicted findings: a predicted bug is a claim about another schedule;
// the rewrites of fuzzer/mutate (Confirm) build that schedule from the recorded run, and
// a run under it either shows the bug at the claimed positions (confirmed) or not.

// Outcomes of a replay or confirmation run (Verdict.Outcome).
const (
	OutcomeConfirmed = "confirmed"         // the bug happened at the expected positions
	OutcomePassed    = "ran to completion" // the run ended without the bug
	OutcomeDiverged  = "diverged"          // the program did not follow the schedule
	OutcomeOther     = "different failure" // the run failed, but not with this bug
	OutcomeNoTrace   = "no trace"          // the run left no readable trace
)

// Verdict says whether a run showed a finding's bug, and if not, what happened instead.
type Verdict struct {
	Confirmed bool
	Outcome   string // one of the Outcome constants
	Detail    string // one line: what was observed
}

func (v Verdict) String() string {
	if v.Detail == "" {
		return v.Outcome
	}
	return v.Outcome + ": " + v.Detail
}

// confirmAttempts bounds the runs a campaign spends confirming one predicted finding, and
// maxConfirmationsPerTest the predicted findings of one test it tries to confirm (the runs
// do not count against the test's budget, so they need their own bound).
const (
	confirmAttempts         = 3
	maxConfirmationsPerTest = 10
)

// claimOf describes a finding for mutate.Confirm.
func claimOf(f Finding) mutate.Claim {
	c := mutate.Claim{Kind: f.Kind}
	for _, p := range f.Positions {
		c.Positions = append(c.Positions, mutate.ClaimPos{Role: p.Role, Pos: schedule.Pos{File: p.File, Line: p.Line}})
	}
	return c
}

// Confirmable reports whether f is a predicted finding a rewrite may confirm.
func Confirmable(f *Finding) bool {
	return f.Confidence == analysis.Predicted && slices.Contains(mutate.ConfirmableKinds, f.Kind)
}

// RewritesFor builds the confirmation schedules of predicted finding f from the trace of
// the run that predicted it, encoded, most promising first.
func RewritesFor(tr *trace.Trace, f Finding) ([][]byte, []string, error) {
	run := &mutate.Run{Trace: tr, SelectPartners: map[int][]int{}}
	rws, err := mutate.Confirm(run, claimOf(f))
	if err != nil {
		return nil, nil, err
	}
	var out [][]byte
	var notes []string
	for _, rw := range rws {
		b, err := schedule.Marshal(rw.Schedule)
		if err != nil {
			continue
		}
		out = append(out, b)
		notes = append(notes, rw.Note)
	}
	if len(out) == 0 {
		return nil, nil, fmt.Errorf("no valid confirmation schedule for this %s", f.Kind)
	}
	return out, notes, nil
}

// Judge decides whether run ar showed the bug of f: for a lock cycle, the cycle itself in
// the run's final state (its goroutines parked at its lock sites, each waiting for what the
// next holds: analysis.BlockedCycleAt), whatever ended the run; for the other kinds, an
// actual finding of f's kind at f's primary line. Otherwise it says what happened instead.
func Judge(f Finding, ar *AnalyzedRun) Verdict {
	if ar == nil || ar.Run == nil {
		return Verdict{Outcome: OutcomeNoTrace}
	}
	if f.Kind == "cyclic-deadlock" {
		if ar.Recorded != nil {
			if why, ok := finalState(ar).BlockedCycleAt(blockingPositions(f)); ok {
				return Verdict{Confirmed: true, Outcome: OutcomeConfirmed, Detail: fmt.Sprintf("%s: %s", ar.Status, why)}
			}
		}
	} else {
		ff, fl, _ := primary(f)
		for _, g := range ar.Findings {
			gf, gl, _ := primary(g)
			if g.Kind == f.Kind && gf == ff && gl == fl && g.Confidence == analysis.Actual {
				return Verdict{Confirmed: true, Outcome: OutcomeConfirmed, Detail: observed(ar, g)}
			}
		}
	}
	if f.Kind == "hang" && ar.Status == run.StatusTimeout { // a spinning test stops anywhere in its loop
		return Verdict{Confirmed: true, Outcome: OutcomeConfirmed, Detail: fmt.Sprintf("%s: the test did not finish", ar.Status)}
	}
	if ar.Recorded == nil {
		d := ""
		if ar.TraceErr != nil {
			d = ar.TraceErr.Error()
		}
		return Verdict{Outcome: OutcomeNoTrace, Detail: d}
	}
	if o := schedule.ReadOutcome(ar.Recorded.Meta); o.Steered && o.Diverged > 0 {
		return Verdict{Outcome: OutcomeDiverged, Detail: fmt.Sprintf("operation %d of the schedule never came (%d admitted); the program took another path", o.Diverged, o.Admitted)}
	}
	if ar.Status == run.StatusPass || ar.Status == run.StatusSkip {
		return Verdict{Outcome: OutcomePassed, Detail: "the test " + string(ar.Status) + "ed without the bug"}
	}
	return Verdict{Outcome: OutcomeOther, Detail: observed(ar, Finding{})}
}

// observed describes how a run ended, with the finding that matched, if any.
func observed(ar *AnalyzedRun, g Finding) string {
	var parts []string
	if g.Kind != "" {
		file, line, _ := primary(g)
		parts = append(parts, fmt.Sprintf("%s at %s:%d", g.Kind, filepath.Base(file), line))
	}
	switch {
	case ar.Panic != "":
		parts = append(parts, fmt.Sprintf("%s: %q", ar.Status, ar.Panic))
	case ar.Fatal != "":
		parts = append(parts, fmt.Sprintf("%s: %q", ar.Status, ar.Fatal))
	default:
		parts = append(parts, "status "+string(ar.Status))
	}
	return strings.Join(parts, "; ")
}

// blockingPositions are the positions at which a lock cycle finding says goroutines block:
// the primary Lock and the other Locks of the cycle (the same role), the pending writers'
// Locks of a read-lock cycle.
func blockingPositions(f Finding) []analysis.Position {
	if len(f.Positions) == 0 {
		return nil
	}
	out := []analysis.Position{f.Positions[0]}
	for _, p := range f.Positions[1:] {
		if p.Role == f.Positions[0].Role || p.Role == "writer lock" {
			out = append(out, p)
		}
	}
	return out
}

// finalState is the analysis of run ar's trace: the campaign's, or computed here when the
// run was not analyzed (a replay's record strategy).
func finalState(ar *AnalyzedRun) *analysis.Result {
	if ar.Analysis != nil {
		return ar.Analysis
	}
	return analysis.Compute(ar.Recorded)
}

// queueConfirmation asks for up to confirmAttempts runs of t under the rewrites of the new
// predicted finding f, cycling through them; they run before anything else the test has
// queued, even when its budget is spent.
func (c *campaign) queueConfirmation(t *testState, parent int, f *Finding, rewrites [][]byte) {
	if len(rewrites) == 0 {
		return
	}
	if t.confirmations >= maxConfirmationsPerTest {
		f.Confirmation = fmt.Sprintf("not attempted: %d predicted findings of this test are being confirmed already", maxConfirmationsPerTest)
		return
	}
	t.confirmations++
	for k := range confirmAttempts {
		key := fmt.Sprintf("confirm:%s:%d", f.ID, k)
		c.confirming[key] = f.Fingerprint
		file, line, _ := primary(*f)
		note := fmt.Sprintf("confirm %s at %s:%d", f.Kind, filepath.Base(file), line)
		t.confirm = append(t.confirm, &RunRequest{Strategy: "confirm", Parent: parent, Key: key, Note: note, Recipe: rewrites[k%len(rewrites)]})
	}
}

// confirmRun judges a confirmation run: when it shows the bug, its finding becomes
// "confirmed" (and its recipe the schedule that confirmed it) and the remaining attempts
// are dropped. It returns the finding the run was confirming, nil for other runs.
func (c *campaign) confirmRun(t *testState, ar *AnalyzedRun) *Finding {
	if ar.Request == nil || ar.Request.Strategy != "confirm" {
		return nil
	}
	f := c.findings[c.confirming[ar.Request.Key]]
	if f == nil || f.Confidence != analysis.Predicted {
		return f
	}
	v := Judge(*f, ar)
	f.Confirmation = v.String()
	if !v.Confirmed {
		if refutes(v, ar) {
			f.Refuted = v.String()
		}
		return f
	}
	f.Confidence, f.Refuted = analysis.Confirmed, ""
	f.Replay = ar.Schedule
	c.keepFiles[ar.Schedule] = true
	if rp := c.recipes[f.Fingerprint]; rp != nil {
		rp.schedule, rp.confirmed = ar.Request.Recipe, true
	}
	t.confirm = slices.DeleteFunc(t.confirm, func(r *RunRequest) bool { return c.confirming[r.Key] == f.Fingerprint })
	return f
}

// A prediction that its confirmation refutes stays in the report, as a hint: the run built
// to make it happen followed the schedule up to the claim (or the program would not take
// it) and the test then passed, so the analysis's claim about that schedule did not hold;
// the bug never happened in the campaign's other runs either (else it would be actual).
// Dropping it would hide a true bug whose confirmation only missed the window (the
// rewrites are approximations); listing it like a bug that happened sets CI off on an
// unproven claim. A confirmation that ended in another failure refutes nothing.

// SeverityHint is the severity of a refuted prediction: below a warning, no exit status.
const SeverityHint analysis.Severity = "hint"

// refutes reports whether confirmation run ar, in which the bug did not happen (v),
// refutes the prediction: the test passed, whether or not the program followed the
// schedule to its end.
func refutes(v Verdict, ar *AnalyzedRun) bool {
	switch v.Outcome {
	case OutcomePassed:
		return true
	case OutcomeDiverged:
		return ar.Status == run.StatusPass
	}
	return false
}

// SeverityOf is the severity of f as the report, the SARIF and the editor show it:
// analysis.SeverityOfFinding, and a hint for a prediction its confirmation refuted.
func SeverityOf(f *Finding) analysis.Severity {
	if f.Refuted != "" && f.Confidence == analysis.Predicted {
		return SeverityHint
	}
	return analysis.SeverityOfFinding(&f.Finding)
}

// Gating reports whether f makes goweave fuzz exit with status 1: an actual or confirmed
// finding, or a prediction nothing refuted; not a timing-dependent failure (Timing).
func Gating(f *Finding) bool {
	return SeverityOf(f) != SeverityHint && f.Timing == nil
}
