package mutate

import (
	"cmp"
	"slices"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// PinChoices adds to s, for each select at which run r chose among more than one ready case
// (trace.Case.Ready) and for which s has no preference, a preference for the case each such
// execution took, the select's other executions free. Go chose those cases at random: a
// replay of r under s alone may choose otherwise, and a failure that depended on the choice
// (analysis/select_cause.go) would then not reproduce. A preference takes its case only
// once it is ready, as Go may have: the replay stays a run of the program.
func PinChoices(s *schedule.Schedule, r *Run) {
	r.Prepare()
	have := map[schedule.Pos]bool{}
	for _, p := range s.Selects {
		have[p.Pos] = true
	}
	for sp, execs := range r.selectExecs {
		if have[sp] || sp.File == "" {
			continue
		}
		cases := make([]int, len(execs))
		pinned := false
		for k, e := range execs {
			cases[k] = schedule.CaseFree
			if ev := &r.Trace.Events[e]; chosenAmongReady(ev) {
				cases[k], pinned = int(ev.A), true
			}
		}
		if pinned {
			s.Selects = append(s.Selects, schedule.SelectPreference{Pos: sp, Window: DefaultSelectWindow, Cases: trimFree(cases)})
		}
	}
	slices.SortFunc(s.Selects, func(a, b schedule.SelectPreference) int {
		return cmp.Or(cmp.Compare(a.Pos.File, b.Pos.File), cmp.Compare(a.Pos.Line, b.Pos.Line))
	})
}

// chosenAmongReady reports whether the select ev took a case while another one was ready.
func chosenAmongReady(ev *trace.Event) bool {
	c, ok := chosenCase(ev)
	if !ok || !c.Ready || ev.Flags.Has(trace.FlagInternal) {
		return false
	}
	for _, o := range ev.Cases {
		if o.Ready && o.Index != c.Index {
			return true
		}
	}
	return false
}
