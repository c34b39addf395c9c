package campaign

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/goweave/goweave/analysis"
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

func (s runSet) count() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

// seenRuns are the runs of a test whose analysis reported a finding: all of them, and
// those in which it happened (actual), not only predicted.
type seenRuns struct{ any, happened runSet }

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
	}
}

// grouped returns one finding per bug of fs: the cause's finding with the other findings'
// positions appended (roles naming their kind when it differs) and the findings listed in
// Related, the strongest confidence of the bug (severity to match), and how many runs of
// its tests showed any finding of the bug. Bugs come in the order of fs.
func (c *campaign) grouped(fs []Finding) []Finding {
	plain := make([]analysis.Finding, len(fs))
	for i := range fs {
		plain[i] = fs[i].Finding
	}
	out := make([]Finding, 0, len(fs))
	for _, b := range analysis.Group(plain) {
		f := fs[b.Cause]
		f.Confidence = b.Confidence
		f.Severity = analysis.SeverityOf(f.Kind, f.Confidence)
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
		f.SeenIn, f.HappenedIn, f.OfRuns = c.runsShowing(members)
		out = append(out, f)
	}
	return out
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
