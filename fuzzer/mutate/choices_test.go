package mutate

import (
	"slices"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// A steered run's schedule (an order) leaves its selects free: the choices the run made
// among ready cases are pinned, the others stay free, and a preference the schedule has is
// kept as it is.
func TestPinChoices(t *testing.T) {
	b := newBuilder()
	sel := func(line uint32, took uint64, ready ...bool) {
		cases := make([]trace.Case, len(ready))
		for k, r := range ready {
			cases[k] = trace.Case{Index: k, Obj: uint64(10 + k), Ready: r}
		}
		b.add(trace.Event{Kind: trace.KindSelect, G: 2, Pos: line, A: took, Flags: trace.FlagSuccess, Aux: uint16(len(cases)), Cases: cases})
	}
	sel(20, 0, true, false) // only one ready: Go had no choice
	sel(20, 1, true, true)  // a choice
	sel(30, 0, true, true)  // a choice, but the schedule prefers case 1 here
	sel(40, 1, false, true) // no choice
	s := &schedule.Schedule{Selects: []schedule.SelectPreference{{Pos: schedule.Pos{File: testFile, Line: 30}, Window: DefaultSelectWindow, Cases: []int{1}}}}
	PinChoices(s, b.run())
	if len(s.Selects) != 2 {
		t.Fatalf("preferences %+v, want lines 20 and 30", s.Selects)
	}
	if p := s.Selects[0]; p.Pos.Line != 20 || !slices.Equal(p.Cases, []int{schedule.CaseFree, 1}) {
		t.Errorf("line 20: %+v, want the second execution pinned to case 1", p)
	}
	if p := s.Selects[1]; p.Pos.Line != 30 || !slices.Equal(p.Cases, []int{1}) {
		t.Errorf("line 30: %+v, want the schedule's own preference", p)
	}
}
