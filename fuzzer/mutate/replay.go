package mutate

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// DefaultOrderWindow is how long an order waits for its next operation before it gives up
// (divergence) and lets the run go free. Replayed operations are normally microseconds apart;
// the window only matters when the schedule is impossible, so it is short.
const DefaultOrderWindow = 200 * time.Millisecond

// replayOrder returns the order in which to admit the chain's operations after exactly what
// must happen before them: the chain's operations in chain order, preceded or interleaved by
// every recorded operation that happens before one of them, in recorded order where HB allows.
// It fails if the chain contradicts the recorded happens-before (then no order exists).
func replayOrder(r *Run, lin []int, chain []int) ([]int, error) {
	if err := consistent(r.HB, chain); err != nil {
		return nil, err
	}
	pos := make(map[int]int, len(chain)) // event -> index in chain
	for k, e := range chain {
		pos[e] = k
	}
	need := func(e int) bool {
		if _, ok := pos[e]; ok {
			return true
		}
		for _, c := range chain {
			if r.HB.HappensBefore(e, c) {
				return true
			}
		}
		return false
	}
	// Walk the recorded order; hold back chain ops until their turn and anything that must
	// come after a held op.
	var out, held []int
	next := 0
	ready := func(e int) bool {
		if k, ok := pos[e]; ok && k != next {
			return false
		}
		for _, h := range held {
			if h != e && r.HB.HappensBefore(h, e) {
				return false
			}
		}
		return true
	}
	place := func(e int) {
		out = append(out, e)
		if _, ok := pos[e]; ok {
			next++
		}
	}
	flush := func() {
		for progress := true; progress; {
			progress = false
			for i, h := range held {
				if ready(h) {
					held = slices.Delete(held, i, i+1)
					place(h)
					progress = true
					break
				}
			}
		}
	}
	seq := lin
	for _, c := range chain { // a substituted/augmented op may be missing from lin (not completed)
		if r.rank[c] < 0 {
			seq = append(slices.Clone(seq), c)
		}
	}
	for _, e := range seq {
		if !need(e) {
			continue
		}
		if ready(e) {
			place(e)
			flush()
		} else {
			held = append(held, e)
		}
		if next == len(chain) {
			break
		}
	}
	flush()
	if next != len(chain) {
		return nil, fmt.Errorf("no order admits the chain after its prerequisites")
	}
	return out, nil
}

// consistent checks that no operation of chain must happen before an earlier one.
func consistent(hb HB, chain []int) error {
	for i := range chain {
		for j := i + 1; j < len(chain); j++ {
			if chain[i] == chain[j] {
				return fmt.Errorf("event %d appears twice", chain[i])
			}
			if hb.HappensBefore(chain[j], chain[i]) {
				return fmt.Errorf("event %d must happen before event %d", chain[j], chain[i])
			}
		}
	}
	return nil
}

// orderSchedule turns admitted events into a schedule: the order, plus select preferences
// that make every select among them take its recorded case (override: event -> case instead).
func orderSchedule(r *Run, events []int, override map[int]int, window, selWindow time.Duration) *schedule.Schedule {
	s := &schedule.Schedule{}
	if len(events) > 0 {
		o := &schedule.Order{Window: window, Ops: make([]schedule.OpID, len(events))}
		for k, e := range events {
			o.Ops[k] = r.Names.Ops[e]
		}
		s.Order = o
	}
	s.Selects = selectPreferences(r, events, override, selWindow)
	return s
}

// selectPreferences lists, for every select position among events, the recorded case of each
// of its executions in events (or the override), with no preference for the others.
func selectPreferences(r *Run, events []int, override map[int]int, window time.Duration) []schedule.SelectPreference {
	t := r.Trace
	want := map[int]int{}
	for _, e := range events {
		if t.Events[e].Kind == trace.KindSelect {
			want[e] = recordedCase(&t.Events[e])
		}
	}
	for e, c := range override {
		want[e] = c
	}
	if len(want) == 0 {
		return nil
	}
	positions := map[schedule.Pos]bool{}
	for e := range want {
		positions[r.Names.Ops[e].Pos] = true
	}
	// Executions of each position in request order, as the runtime counts them.
	execs := map[schedule.Pos][]int{}
	for sp := range positions {
		execs[sp] = r.selectExecs[sp]
	}
	var out []schedule.SelectPreference
	for sp, list := range execs {
		cases := make([]int, len(list))
		for k, e := range list {
			cases[k] = schedule.CaseFree
			if c, ok := want[e]; ok {
				cases[k] = c
			}
		}
		cases = trimFree(cases)
		if len(cases) == 1 && cases[0] == schedule.CaseFree {
			continue
		}
		out = append(out, schedule.SelectPreference{Pos: sp, Window: window, Cases: cases})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Pos.File != out[j].Pos.File {
			return out[i].Pos.File < out[j].Pos.File
		}
		return out[i].Pos.Line < out[j].Pos.Line
	})
	return out
}

// recordedCase is the case a select took in the recording, as a schedule preference.
func recordedCase(e *trace.Event) int {
	if !e.Completed() {
		return schedule.CaseFree
	}
	if c, ok := chosenCase(e); ok {
		return c.Index
	}
	return schedule.CaseDefault
}

// Replay returns a schedule that repeats the recorded run r: every schedulable operation and
// every atomic operation in recorded order (as PinRun), every select taking its recorded
// case. upTo > 0 replays only the first upTo operations and lets the rest run free. A
// finding's run replays with it.
func Replay(r *Run, upTo int) *schedule.Schedule {
	r.Prepare()
	lin := r.linPin
	if upTo > 0 && upTo < len(lin) {
		lin = lin[:upTo]
	}
	return orderSchedule(r, lin, nil, DefaultOrderWindow, DefaultSelectWindow)
}

// Reorder returns a schedule in which the given events are admitted in the given order, each
// after exactly what must happen before it in the recorded run; then the run is free. It is
// how a predicted bug is confirmed (e.g. events = [close, send] for a predicted send on a
// closed channel). It fails when the order contradicts the recorded happens-before or names
// an operation that cannot be scheduled.
func Reorder(r *Run, events []int) (*schedule.Schedule, error) {
	r.Prepare()
	for _, e := range events {
		if e < 0 || e >= len(r.Trace.Events) || !r.Names.Schedulable(e) {
			return nil, fmt.Errorf("event %d cannot be scheduled (no logical goroutine, position or orderable kind)", e)
		}
	}
	order, err := replayOrder(r, linear(r), events)
	if err != nil {
		return nil, err
	}
	return orderSchedule(r, order, nil, DefaultOrderWindow, DefaultSelectWindow), nil
}
