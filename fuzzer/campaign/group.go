package campaign

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer/run"
)

// The campaign keeps every distinct finding (by fingerprint: what confirmation, recipes and
// saved state work on), and reports one finding per bug (analysis.Group): the report, the
// findings Config.Enough sees (the language server publishes those) and the progress count.

// Related is another finding of the same bug as the Finding that lists it: another instance
// of the same operation, or a symptom (a deadlock, a leak, a panic) of the cause.
type Related struct {
	ID         string              `json:"id"`
	Kind       string              `json:"kind"`
	Confidence analysis.Confidence `json:"confidence"`
	Message    string              `json:"message"`
	Position   analysis.Position   `json:"position"` // its primary position
}

// runSet is a set of run indices of one test.
type runSet []uint64

func (s *runSet) add(i int) {
	for len(*s) <= i/64 {
		*s = append(*s, 0)
	}
	(*s)[i/64] |= 1 << (i % 64)
}

func (s *runSet) addAll(o runSet) {
	for len(*s) < len(o) {
		*s = append(*s, 0)
	}
	for i, w := range o {
		(*s)[i] |= w
	}
}

// equal reports whether s and o hold the same runs.
func (s runSet) equal(o runSet) bool {
	for i := range max(len(s), len(o)) {
		var a, b uint64
		if i < len(s) {
			a = s[i]
		}
		if i < len(o) {
			b = o[i]
		}
		if a != b {
			return false
		}
	}
	return true
}

func (s runSet) count() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

// seenRuns are the runs of a test whose analysis reported a finding: all of them, those
// in which it happened (actual), not only predicted, and those whose finding carried timing
// evidence (timing.go), the first of which is timing (the first a schedule's hold showed,
// when one did: it measured the delay; a goroutine late by the machine gives a bound).
type seenRuns struct {
	any, happened, timed runSet
	timing               *analysis.Timing
}

// noteSeen records that run index of t showed the findings.
func (t *testState) noteSeen(fs []Finding, index int) {
	for i := range fs {
		s := t.seen[fs[i].Fingerprint]
		if s == nil {
			s = &seenRuns{}
			t.seen[fs[i].Fingerprint] = s
		}
		s.any.add(index)
		if fs[i].Confidence != analysis.Predicted {
			s.happened.add(index)
		}
		if fs[i].Timing != nil {
			s.timed.add(index)
			if s.timing == nil || s.timing.Late && !fs[i].Timing.Late {
				s.timing = fs[i].Timing
			}
		}
	}
}

// grouped returns one finding per bug of fs: the cause's finding with the other findings'
// positions appended (roles naming their kind when it differs) and the findings listed in
// Related, the strongest confidence of the bug (severity to match), and how many runs of
// its tests showed any finding of the bug. Bugs come in the order of fs.
func (c *campaign) grouped(fs []Finding) []Finding {
	out := make([]Finding, 0, len(fs))
	for _, b := range c.bugs(fs) {
		if !c.worthReporting(fs[b.Cause]) {
			continue
		}
		f := fs[b.Cause]
		if f.Confidence != b.Confidence {
			// Another finding of the bug shows it happened: its run is the evidence (and
			// what a replay of this finding reruns); the ID and recipe stay the cause's.
			for _, i := range b.Others {
				if o := fs[i]; o.Confidence == b.Confidence {
					f.Run, f.Strategy, f.Trace, f.Replay, f.Earlier = o.Run, o.Strategy, o.Trace, o.Replay, o.Earlier
					break
				}
			}
		}
		f.Confidence = b.Confidence
		if f.Confidence != analysis.Predicted {
			f.Refuted = "" // another finding of the bug happened
		}
		f.Positions = slices.Clone(f.Positions)
		at := map[string]bool{}
		for _, p := range f.Positions {
			at[fmt.Sprintf("%s:%d", p.File, p.Line)] = true
		}
		members := []Finding{fs[b.Cause]}
		for _, i := range b.Others {
			o := fs[i]
			members = append(members, o)
			r := Related{ID: o.ID, Kind: o.Kind, Confidence: o.Confidence, Message: o.Message}
			if len(o.Positions) > 0 {
				r.Position = o.Positions[0]
			}
			f.Related = append(f.Related, r)
			for _, p := range o.Positions {
				if key := fmt.Sprintf("%s:%d", p.File, p.Line); !at[key] {
					at[key] = true
					if o.Kind != f.Kind {
						p.Role = fmt.Sprintf("%s (%s)", p.Role, o.Kind)
					}
					f.Positions = append(f.Positions, p)
				}
			}
		}
		for _, o := range members {
			if o.Confidence == analysis.Predicted && o.Refuted == "" {
				f.Refuted = "" // a prediction of the bug nothing refuted
			}
		}
		f.Timing = nil
		if tm := c.timingOf(fs[b.Cause]); tm != nil {
			markTiming(&f, tm, at)
		}
		c.markSelectCause(&f, fs[b.Cause], at)
		f.Severity = SeverityOf(&f)
		f.SeenIn, f.HappenedIn, f.OfRuns = c.runsShowing(members)
		out = append(out, f)
	}
	return out
}

// sameRuns returns the run records of rule 7 of analysis.Group: whether fs[symptom]
// happened in exactly the runs of this campaign (at least one) in which the findings of
// bug happened, or an earlier campaign found it to (JoinedTo).
func (c *campaign) sameRuns(fs []Finding) func(symptom int, bug []int) bool {
	return func(symptom int, bug []int) bool {
		for _, i := range bug {
			if fs[symptom].JoinedTo == fs[i].Fingerprint {
				return true
			}
		}
		some := false
		for _, t := range c.tests {
			var a, b runSet
			if s := t.seen[fs[symptom].Fingerprint]; s != nil {
				a = s.happened
			}
			for _, i := range bug {
				if s := t.seen[fs[i].Fingerprint]; s != nil && !analysis.SymptomKind(fs[i].Kind) {
					b.addAll(s.happened)
				}
			}
			if !a.equal(b) {
				return false
			}
			some = some || a.count() > 0
		}
		return some
	}
}

// noteJoins records in the campaign's findings which symptoms its run records joined to a
// cause (JoinedTo), for the saved state.
func (c *campaign) noteJoins() {
	all := make([]Finding, 0, len(c.findings))
	plain := make([]analysis.Finding, 0, len(c.findings))
	for _, f := range c.findings {
		all = append(all, *f)
		plain = append(plain, f.Finding)
	}
	for _, b := range analysis.GroupWith(plain, c.sameRuns(all)) {
		cause := all[b.Cause]
		for _, i := range b.Others {
			if f := c.findings[all[i].Fingerprint]; f.JoinedTo == "" && analysis.SymptomKind(f.Kind) && !analysis.SymptomKind(cause.Kind) {
				f.JoinedTo = cause.Fingerprint
			}
		}
	}
}

// worthReporting says whether a bug whose cause is only a symptom of how runs ended is
// reported: a flaky panic or failure when its test passed in some run too (one that fails
// in every run fails under go test: not the schedule's doing; nor does one failing in
// every run after its passes, leftstate.go), a hang when its test timed
// out in at least two runs and in at least half of them (now and then may be a loaded
// machine; a test slower than the time limit on this machine times out in its only run).
// A hang the time limit's check explained (a proven leak or deadlock) is not a symptom
// alone: its cause is that finding. A test this campaign did not run keeps what an earlier
// campaign found. A hang left out for having timed out once gets a note (hangsLeftOut).
func (c *campaign) worthReporting(f Finding) bool {
	t := c.ranTest(f)
	if t == nil {
		return true
	}
	switch f.Kind {
	case "flaky-panic", "flaky-failure":
		// (failing after its passes: the state they left, an error of the campaign)
		return t.statuses[string(run.StatusPass)] > 0 && !t.leftState()
	case "hang":
		timeouts := t.stuckTimeouts()
		return timeouts >= 2 && 2*timeouts >= t.runs
	}
	return true
}

// ranTest is the test of f if this campaign ran it, else nil.
func (c *campaign) ranTest(f Finding) *testState {
	for _, t := range c.tests {
		if t.bin != nil && t.bin.Package == f.Package && t.name == f.Test && t.runs > 0 {
			return t
		}
	}
	return nil
}

// bugs groups fs into bugs (analysis.GroupWith, with this campaign's runs).
func (c *campaign) bugs(fs []Finding) []analysis.Bug {
	plain := make([]analysis.Finding, len(fs))
	for i := range fs {
		plain[i] = fs[i].Finding
	}
	return analysis.GroupWith(plain, c.sameRuns(fs))
}

// hangsLeftOut notes each test that timed out in some runs without a reported hang: its
// hang finding is left out by worthReporting (fewer than two timed-out runs, or fewer than
// half of them), or it has none (no trace came back from the runs stopped at the limit).
// The user may want to look again with a larger -timeout. A test whose timeout the time
// limit's check explained (the hang is grouped under that leak or deadlock) gets no note.
func (c *campaign) hangsLeftOut(fs []Finding) []string {
	explained := map[*testState]bool{}
	for _, b := range c.bugs(fs) {
		byHang := fs[b.Cause].Kind == "hang" // else the hangs are grouped under a leak or deadlock
		for _, k := range append([]int{b.Cause}, b.Others...) {
			f := fs[k]
			if f.Kind != "hang" {
				continue
			}
			if t := c.ranTest(f); t != nil && (!byHang || c.worthReporting(f)) {
				explained[t] = true
			}
		}
	}
	var notes []string
	for _, t := range c.tests {
		timeouts := t.stuckTimeouts()
		if timeouts == 0 || explained[t] || t.bin == nil {
			continue
		}
		notes = append(notes, fmt.Sprintf("%s.%s did not finish within its time limit (%s) in %d of %d runs: not reported as a hang, since a test slower than the limit on this machine looks the same; rerun with a larger -timeout or more runs to tell",
			t.bin.Package, t.name, c.cfg.RunTimeout, timeouts, t.runs))
	}
	return notes
}

// stuckTimeouts counts the runs of t stopped at the time limit with no evidence of
// progress (those stopped at their cap while progressing are slow: slowWarning).
func (t *testState) stuckTimeouts() int {
	return t.statuses[string(run.StatusTimeout)] - t.notes.capped
}

// runsShowing counts the runs of this campaign that reported any of fs, those in which one
// of them happened, and the runs of the tests they were found in.
func (c *campaign) runsShowing(fs []Finding) (seen, happened, of int) {
	for _, t := range c.tests {
		var any, actual runSet
		found := false
		for i := range fs {
			if s := t.seen[fs[i].Fingerprint]; s != nil {
				any.addAll(s.any)
				actual.addAll(s.happened)
				found = true
			}
		}
		if found {
			seen += any.count()
			happened += actual.count()
			of += t.runs
		}
	}
	if seen == 0 {
		return 0, 0, 0
	}
	return seen, happened, of
}

// gatingCount counts the findings of fs that are bugs (Gating), and the refuted
// predictions (hints) apart; timing-dependent failures are neither (timingCount).
func gatingCount(fs []Finding) (bugs, hints int) {
	for i := range fs {
		switch {
		case Gating(&fs[i]):
			bugs++
		case fs[i].Timing == nil:
			hints++
		}
	}
	return bugs, hints
}
