package analysis

import (
	"cmp"
	"fmt"
	"math/bits"
	"path/filepath"
	"slices"

	"github.com/goweave/goweave/analysis/selectcase"
	"github.com/goweave/goweave/analysis/trace"
)

// A select's random choice as the cause of a flaky failure. When more than one case of a
// select is ready, Go takes one of them at random (the trace marks the ready cases:
// trace.Case.Ready). A test that fails in some runs and passes in others because of such a
// choice (a cancelled context's Done and a free pool slot, both ready) fails at its
// assertion, far from the select. Comparing the runs shows the select: in the failing runs
// it took one case while another was ready, in the passing runs it took another.
//
// Each run is summarized by the choices it made among ready cases (SelectChoicesOf), up to
// the test's first reported failure: what the failure could depend on. SelectCauses then
// keeps a select and case only on a strong split, never on a few runs that chose
// differently by chance: at least 90% of the failing runs (and at least minCauseRuns) took
// the case while another was ready, at most 10% of the passing runs did, and those failing
// runs and the passing runs that took another case while it was ready number at least
// minCauseEvidence together. A select unrelated to the outcome, choosing at random once per
// run, goes the outcome's way in that many runs with probability 2^-minCauseEvidence; one
// that chooses in a loop takes both cases in most runs, passing ones too, and never does.
// The passing runs need not have had the choice: a failure that needs both cases ready (a
// goroutine delayed past a timer) and then the wrong one taken is named too, and the
// message says how the passing runs went.

// minCauseRuns is the fewest failing runs that took the case for a select to be named as
// a failure's cause; minCauseEvidence the fewest such runs and passing runs that took
// another case while it was ready, together: choices that all went the way the outcome
// did, which a choice unrelated to the outcome (a coin flip) makes with probability
// 2^-minCauseEvidence.
const (
	minCauseRuns     = 4
	minCauseEvidence = 10
)

// maxChoiceSites bounds the selects kept per run (a run of many distinct selects keeps
// the first ones).
const maxChoiceSites = 256

// SelectSite is a select statement, by the position its Select events have: the `select`
// keyword's line, or the case line of a select with one case and a default.
type SelectSite struct {
	File string
	Line int
}

// ChoiceSet is what one run's executions of a select chose among ready cases (case bits
// in the trace's numbering, send cases first: package selectcase names them).
type ChoiceSet struct {
	Took  uint64 // the cases taken while another case was ready
	Ready uint64 // every case ready at those choices
	Sends uint64 // the send cases
	Cases int    // number of cases (at most 64)
}

// SelectChoices summarizes a run: the selects that chose among more than one ready case.
type SelectChoices map[SelectSite]ChoiceSet

// failingMethod reports whether a is one of the methods of testing.T that fail the test (TestUse a, FORMAT.md).
func failingMethod(a uint64) bool {
	switch testMethod(a) {
	case "Error", "Errorf", "Fatal", "Fatalf", "Fail", "FailNow":
		return true
	}
	return false
}

// SelectChoicesOf returns the choices among ready cases that the selects of tr made before
// the test first reported a failure (a failing method of testing.T; the whole run when it
// called none). Selects run by the standard library on the user's behalf are left out:
// their cases are not the user's.
func SelectChoicesOf(tr *trace.Trace) SelectChoices {
	if tr == nil {
		return nil
	}
	until := ^uint64(0)
	for i := range tr.Events {
		if ev := &tr.Events[i]; ev.Kind == trace.KindTestUse && failingMethod(ev.A) {
			until = min(until, ev.Pre)
		}
	}
	var out SelectChoices
	for i := range tr.Events {
		ev := &tr.Events[i]
		if ev.Kind != trace.KindSelect || len(ev.Cases) < 2 || len(ev.Cases) > 64 || ev.A == trace.SelectDefault ||
			ev.A >= uint64(len(ev.Cases)) || !ev.Completed() || ev.Post > until || ev.Flags.Has(trace.FlagInternal) {
			continue
		}
		var ready, sends uint64
		for k, c := range ev.Cases {
			if c.Ready {
				ready |= 1 << k
			}
			if c.Send {
				sends |= 1 << k
			}
		}
		took := uint64(1) << ev.A
		if ready&took == 0 || ready&^took == 0 {
			continue // woken by its first ready case, or the only one ready: no choice
		}
		p := tr.Position(ev.Pos)
		if p.File == "" {
			continue
		}
		site := SelectSite{p.File, p.Line}
		cs, ok := out[site]
		if !ok && len(out) >= maxChoiceSites {
			continue
		}
		if out == nil {
			out = SelectChoices{}
		}
		cs.Took |= took
		cs.Ready |= ready
		cs.Sends, cs.Cases = sends, len(ev.Cases)
		out[site] = cs
	}
	return out
}

// SelectCause is a select whose choice among ready cases tells a test's failing runs from
// its passing ones.
type SelectCause struct {
	Site   SelectSite
	Case   int    // the case the failing runs took (trace numbering)
	Other  int    // the case most often ready beside it then
	Passed int    // the case the passing runs took most often while Case was ready; -1: none did
	Sends  []bool // the cases' directions, for package selectcase
	// Failing and Passing count the runs compared; FailingTook the failing runs that took
	// Case among ready cases, PassingTook the passing runs that did too, PassingOther the
	// passing runs that took another case while Case was ready.
	Failing, FailingTook, Passing, PassingTook, PassingOther int
}

// SelectCauses returns the selects whose choice among ready cases separates the failing
// runs from the passing ones (see the top of this file for the rule), the strongest first.
func SelectCauses(failing, passing []SelectChoices) []SelectCause {
	type key struct {
		site SelectSite
		k    int
	}
	if len(failing) < minCauseRuns || len(passing) == 0 {
		return nil
	}
	took := map[key]int{}
	beside := map[key][]int{} // per case taken, how often each other case was ready then
	shape := map[SelectSite]ChoiceSet{}
	for _, run := range failing {
		for site, cs := range run {
			shape[site] = cs
			for t := cs.Took; t != 0; t &= t - 1 {
				kk := key{site, bits.TrailingZeros64(t)}
				took[kk]++
				if beside[kk] == nil {
					beside[kk] = make([]int, 64)
				}
				for r := cs.Ready &^ (1 << kk.k); r != 0; r &= r - 1 {
					beside[kk][bits.TrailingZeros64(r)]++
				}
			}
		}
	}
	var out []SelectCause
	for kk, n := range took {
		if n < minCauseRuns || 10*n < 9*len(failing) {
			continue
		}
		bit := uint64(1) << kk.k
		c := SelectCause{Site: kk.site, Case: kk.k, Failing: len(failing), FailingTook: n, Passing: len(passing)}
		passed := make([]int, 64)
		for _, run := range passing {
			cs, ok := run[kk.site]
			if !ok || cs.Cases != shape[kk.site].Cases {
				continue
			}
			if cs.Took&bit != 0 {
				c.PassingTook++
			}
			if rest := cs.Took &^ bit; rest != 0 && cs.Ready&bit != 0 {
				c.PassingOther++
				for ; rest != 0; rest &= rest - 1 {
					passed[bits.TrailingZeros64(rest)]++
				}
			}
		}
		if c.FailingTook+c.PassingOther < minCauseEvidence || 10*c.PassingTook > len(passing) {
			continue
		}
		c.Other, c.Passed = mostOften(beside[kk]), mostOften(passed)
		cs := shape[kk.site]
		c.Sends = make([]bool, cs.Cases)
		for k := range c.Sends {
			c.Sends[k] = cs.Sends&(1<<k) != 0
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b SelectCause) int {
		return cmp.Or(cmp.Compare(b.FailingTook+b.PassingOther, a.FailingTook+a.PassingOther),
			cmp.Compare(a.Site.File, b.Site.File), cmp.Compare(a.Site.Line, b.Site.Line), cmp.Compare(a.Case, b.Case))
	})
	return out
}

// mostOften returns the index of the largest count, the first among equals; -1 when all
// are 0.
func mostOften(counts []int) int {
	best := -1
	for k, n := range counts {
		if n > 0 && (best < 0 || n > counts[best]) {
			best = k
		}
	}
	return best
}

// Describe says what c shows, for a finding's message, and gives the select and its cases
// as related positions.
func (c SelectCause) Describe() (string, []Position) {
	s, err := selectcase.Find(c.Site.File, c.Site.Line, c.Sends)
	name := func(k int) string { return selectcase.Name(c.Site.File, c.Site.Line, c.Sends, k) }
	short := name
	if err == nil {
		name = s.Name
		short = func(k int) string {
			if cc, ok := s.Source(k); ok {
				return fmt.Sprintf("case %d", cc.Index+1)
			}
			return s.Name(k)
		}
	}
	msg := fmt.Sprintf("the select at %s:%d took %s while %s was ready too in %s failing runs",
		filepath.Base(c.Site.File), c.Site.Line, name(c.Case), name(c.Other), ofRuns(c.FailingTook, c.Failing))
	if c.PassingTook == 0 {
		msg += fmt.Sprintf(" and in none of the %d passing runs", c.Passing)
	} else {
		msg += fmt.Sprintf(" and in only %d of the %d passing runs", c.PassingTook, c.Passing)
	}
	if c.Passed >= 0 {
		msg += fmt.Sprintf(", %s took %s while %s was ready", ofRuns(c.PassingOther, c.Passing), short(c.Passed), short(c.Case))
	}
	msg += ": Go chooses among ready cases at random"
	pos := []Position{{Role: fmt.Sprintf("cause: this select took %s when the test failed (chosen at random among ready cases)", short(c.Case)),
		File: c.Site.File, Line: c.Site.Line, Column: LineColumn(c.Site.File, c.Site.Line)}}
	if err == nil {
		roles := map[int]string{c.Case: "case taken when the test failed", c.Other: "case ready too when the test failed"}
		if c.Passed >= 0 {
			roles[c.Passed] = "case taken when the test passed"
			if c.Passed == c.Other {
				roles[c.Passed] = "case ready too when the test failed, taken when it passed"
			}
		}
		for _, k := range []int{c.Case, c.Other, c.Passed} {
			if cc, ok := s.Source(k); ok && cc.Line != c.Site.Line && roles[k] != "" {
				pos = append(pos, Position{Role: roles[k], File: c.Site.File, Line: cc.Line, Column: cc.Column})
				delete(roles, k)
			}
		}
	}
	return msg, pos
}

// ofRuns says "n of m", or "all m" when n is m.
func ofRuns(n, m int) string {
	if n == m {
		return fmt.Sprintf("all %d", m)
	}
	return fmt.Sprintf("%d of %d", n, m)
}
