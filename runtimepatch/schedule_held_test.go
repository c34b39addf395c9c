package runtimepatch

import (
	"testing"

	"github.com/goweave/goweave/analysis/trace"
)

// When a delayed operation goes on: after the operation it waits for took
// effect (not merely passed its pre hook), and, at a normal exit, before the
// trace is written (programs: testdata/replay/held_test.go).

// TestScheduleDelayHeldLockAtExit: 1.1's Lock is delayed until the test
// goroutine's Lock, which returns holding the mutex; the test ends at once.
// Every run must show 1.1 blocked forever in its Lock: the exit waits for
// the goroutine the delay released to reach it. Without that wait, about
// half of the runs ended before 1.1 ran, and the trace showed no Lock.
func TestScheduleDelayHeldLockAtExit(t *testing.T) {
	m := markersIn(t, "replay")
	s := &schedText{}
	s.delay("1.1", trace.KindLock, m["held.put"], 1, 2000, "1", trace.KindLock, m["held.peek"], 1)
	const runs = 20
	for i := range runs {
		r := runSchedule(t, "TestAbandonedLock", s.String())
		if r.err != nil {
			t.Fatalf("run %d: the test failed: %v\n%s", i, r.err, r.output)
		}
		for _, key := range []string{"schedule.delay.held", "schedule.delay.timeouts", "schedule.exit.pending"} {
			want := 0
			if key == "schedule.delay.held" {
				want = 1
			}
			if got := metaInt(r, key); got != want {
				t.Errorf("run %d: META %s = %d, want %d", i, key, got, want)
			}
		}
		peek := oneM(t, r.tr, trace.KindLock, "held.peek", m)
		if peek.Post == 0 {
			t.Fatalf("run %d: the test goroutine's Lock did not complete\n%s", i, dump(r.tr))
		}
		put := atReplay(t, r.tr, trace.KindLock, "held.put")
		if len(put) != 1 {
			t.Fatalf("run %d: %d Locks at @held.put, want 1 (the released goroutine must reach it before the exit)\n%s", i, len(put), dump(r.tr))
		}
		if put[0].Post != 0 || put[0].Pre < peek.Post {
			t.Errorf("run %d: the delayed Lock (pre %d post %d) should be requested after the test's acquisition (post %d) and never complete", i, put[0].Pre, put[0].Post, peek.Post)
		}
		if g := goroutineOf(r.tr, put[0].G); g == nil || g.Status == 1 || g.Status == 2 {
			t.Errorf("run %d: the goroutine of the delayed Lock is %+v, want it listed and blocked (waiting or leaked)", i, g)
		}
	}
}

// atReplay returns the events of kind k at marker name of testdata/replay.
func atReplay(t *testing.T, tr *trace.Trace, k trace.Kind, name string) []trace.Event {
	t.Helper()
	pos, ok := markersIn(t, "replay")[name]
	if !ok {
		t.Fatalf("no marker @%s in testdata/replay", name)
	}
	var evs []trace.Event
	for _, e := range tr.Events {
		if e.Kind == k && tr.Position(e.Pos).String() == pos {
			evs = append(evs, e)
		}
	}
	return evs
}

// TestScheduleDelayWaitsForEffect: 1.1's Do is delayed until 1.2's Do, whose
// f computes for 5 ms. The released Do must go on only after 1.2's Do
// returned: admission alone (1.2 passed its pre hook) is not enough, since
// the goroutine performing the until op may still be on its way (here: in
// f; under load: descheduled), and the held op would overtake it.
func TestScheduleDelayWaitsForEffect(t *testing.T) {
	m := markersIn(t, "replay")
	s := &schedText{}
	s.delay("1.1", trace.KindOnceDo, m["slow.first"], 1, 2000, "1.2", trace.KindOnceDo, m["slow.second"], 1)
	for i := range 3 {
		r := runSchedule(t, "TestSlowOnce", s.String())
		if r.err != nil {
			t.Fatalf("run %d: the test failed: %v\n%s", i, r.err, r.output)
		}
		first := oneM(t, r.tr, trace.KindOnceDo, "slow.first", m)
		second := oneM(t, r.tr, trace.KindOnceDo, "slow.second", m)
		if !second.Flags.Has(trace.FlagSuccess) || first.Flags.Has(trace.FlagSuccess) {
			t.Errorf("run %d: 1.2's Do should run f, 1.1's not\n%s", i, dump(r.tr))
		}
		if first.Pre < second.Post {
			t.Errorf("run %d: the delayed Do was requested (pre %d) before the Do it waited for returned (post %d)", i, first.Pre, second.Post)
		}
		if got := metaInt(r, "schedule.delay.timeouts"); got != 0 {
			t.Errorf("run %d: delay timeouts = %d, want 0", i, got)
		}
	}
}

// goroutineOf returns the GOROUTINES record of goid, nil when not listed.
func goroutineOf(tr *trace.Trace, goid uint64) *trace.Goroutine {
	for i := range tr.Goroutines {
		if tr.Goroutines[i].ID == goid {
			return &tr.Goroutines[i]
		}
	}
	return nil
}
