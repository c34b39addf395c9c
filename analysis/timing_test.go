package analysis

import (
	"testing"
	"time"

	"github.com/goweave/goweave/analysis/trace"
)

// timingTrace is a trace of a test goroutine (7) that started a worker (9) at line 3 of
// w.go, whose Lock of mutex 50 at w.go:4 comes after its hold (stamp 50), and which locks
// mutex 50 itself after its wait at w_test.go:11; with the events and the timing records
// ts. Positions: 1 w.go:3 (go), 2 w.go:4 (the worker's Lock), 3 w_test.go:10 (the Sleep
// or timer), 4 w_test.go:11 (the test's Lock).
func timingTrace(events []trace.Event, ts ...trace.Timed) *trace.Trace {
	return &trace.Trace{
		Meta: map[string]string{"module": "/m"},
		Positions: []trace.Position{
			{File: "/m/w.go", Line: 3}, {File: "/m/w.go", Line: 4}, {File: "/m/w_test.go", Line: 10}, {File: "/m/w_test.go", Line: 11},
		},
		Events: append([]trace.Event{
			{Kind: trace.KindGoSpawn, G: 7, Pos: 1, A: 9, Pre: 1, Post: 1},
			{Kind: trace.KindLock, G: 7, Pos: 4, Obj: 50, Pre: 60, Post: 61},
			{Kind: trace.KindLock, G: 9, Pos: 2, Obj: 50, Pre: 70, Post: 71},
		}, events...),
		Timed: ts,
	}
}

const ms1 = int64(time.Millisecond)

func sleep(g uint64, start int64, d time.Duration) trace.Timed {
	return trace.Timed{Kind: trace.KindTimedWait, Aux: trace.WaitSleep, Pos: 3, G: g, Start: start, Dur: d}
}

func hold(g uint64, start int64, d time.Duration) trace.Timed {
	return trace.Timed{Kind: trace.KindHold, Aux: uint16(trace.KindLock), Pos: 2, G: g, Stamp: 50, Start: start, Dur: d}
}

func TestTimingOfSleepExpiringInHold(t *testing.T) {
	// The test sleeps 20 ms from t=0; the worker is held from 1 ms to 22 ms.
	tm := TimingOf(timingTrace(nil, sleep(7, 0, 20*time.Millisecond), hold(9, ms1, 21*time.Millisecond)))
	if tm == nil {
		t.Fatal("no timing: the sleep expired while the worker was held")
	}
	if tm.Wait != "time.Sleep(20ms)" || tm.WaitKind != "sleep" || tm.WaitMs != 20 || tm.At.Line != 10 ||
		tm.HeldAt.Line != 4 || tm.DelayedMs != 21 || tm.Delayed != (Goroutine{ID: 9, Spawn: "w.go:3"}) || tm.Waiter != (Goroutine{ID: 7}) {
		t.Errorf("timing %+v", *tm)
	}
	// A worker that started late is held for less than the test slept, and still beat by
	// the clock only because it was held.
	if TimingOf(timingTrace(nil, sleep(7, 0, 20*time.Millisecond), hold(9, 5*ms1, 16*time.Millisecond))) == nil {
		t.Error("no timing for a hold from 5 to 21 ms over a sleep ending at 20 ms")
	}
}

func TestTimingOfNeedsTheHoldToSpanTheExpiry(t *testing.T) {
	cases := map[string]*trace.Trace{
		"hold after the sleep ended":   timingTrace(nil, sleep(7, 0, 20*time.Millisecond), hold(9, 25*ms1, 30*time.Millisecond)),
		"hold ended before the expiry": timingTrace(nil, sleep(7, 0, 20*time.Millisecond), hold(9, ms1, 10*time.Millisecond)),
		"the sleeper itself held":      timingTrace(nil, sleep(7, 0, 20*time.Millisecond), hold(7, ms1, 30*time.Millisecond)),
		"no hold (a free run)":         timingTrace(nil, sleep(7, 0, 20*time.Millisecond)),
		"no wait":                      timingTrace(nil, hold(9, ms1, 30*time.Millisecond)),
		// The worker is held before a Lock of another mutex than the test's: not what the
		// test waited for.
		"an unrelated held goroutine": func() *trace.Trace {
			tr := timingTrace(nil, sleep(7, 0, 20*time.Millisecond), hold(9, ms1, 21*time.Millisecond))
			tr.Events[2].Obj = 51
			return tr
		}(),
		// The held Lock never came (the run ended first).
		"a held operation that never came": func() *trace.Trace {
			tr := timingTrace(nil, sleep(7, 0, 20*time.Millisecond), hold(9, ms1, 21*time.Millisecond))
			tr.Events = tr.Events[:2]
			return tr
		}(),
		// A polling loop: its earlier rounds expire inside the hold, its last one after it:
		// the loop waited long enough.
		"a polling loop that outlasted the hold": timingTrace(nil,
			sleep(7, 0, 5*time.Millisecond), sleep(7, 5*ms1, 5*time.Millisecond), sleep(7, 10*ms1, 5*time.Millisecond),
			hold(9, ms1, 12*time.Millisecond)),
	}
	for name, tr := range cases {
		if tm := TimingOf(tr); tm != nil {
			t.Errorf("%s: timing %+v, want none", name, *tm)
		}
	}
	// The same loop giving up while the worker is held.
	tm := TimingOf(timingTrace(nil,
		sleep(7, 0, 5*time.Millisecond), sleep(7, 5*ms1, 5*time.Millisecond), sleep(7, 10*ms1, 5*time.Millisecond),
		hold(9, ms1, 30*time.Millisecond)))
	if tm == nil || tm.Sleeps != 3 || tm.WaitMs != 5 {
		t.Errorf("a polling loop that gave up during the hold: timing %+v, want its 3 sleeps of 5 ms", tm)
	}
}

// A timer counts only when it fired: a channel timer's TimerFire, a function timer's
// GoSpawn of no goroutine.
func TestTimingOfTimers(t *testing.T) {
	timer := func(aux uint16, obj uint64) trace.Timed {
		return trace.Timed{Kind: trace.KindTimedWait, Aux: aux, Pos: 3, G: 7, Obj: obj, Start: 0, Dur: 20 * time.Millisecond}
	}
	h := hold(9, ms1, 30*time.Millisecond)
	if tm := TimingOf(timingTrace(nil, timer(trace.WaitTimerChan, 5), h)); tm != nil {
		t.Errorf("a timer that never fired: timing %+v", *tm)
	}
	fire := trace.Event{Kind: trace.KindTimerFire, Obj: 5, Pos: 3, Pre: 2, Post: 2, A: 1}
	tm := TimingOf(timingTrace([]trace.Event{fire}, timer(trace.WaitTimerChan, 5), h))
	if tm == nil || tm.WaitKind != "timer" || tm.Wait != "a timer of 20ms (time.After or time.NewTimer)" {
		t.Errorf("a fired channel timer: timing %+v", tm)
	}
	// A module before Go 1.23 (asynctimerchan=1): no fire recorded, the value's receive
	// (here by a select) shows it.
	sel := trace.Event{Kind: trace.KindSelect, G: 7, Pos: 3, Pre: 2, Post: 3, A: 1, Aux: 2,
		Cases: []trace.Case{{Index: 0, Obj: 4}, {Index: 1, Obj: 5}}}
	if tm := TimingOf(timingTrace([]trace.Event{sel}, timer(trace.WaitTimerChan, 5), h)); tm == nil {
		t.Error("a channel timer whose value a select received: no timing")
	}
	sel.A = 0
	if tm := TimingOf(timingTrace([]trace.Event{sel}, timer(trace.WaitTimerChan, 5), h)); tm != nil {
		t.Errorf("a select that took another case than the timer's: timing %+v", *tm)
	}
	// The test goroutine itself held past its timer, right before a select on the timer's
	// channel: its deadline ran out while it was held. Held before another operation
	// (its Lock of mutex 50), the timer is not what it was held from.
	self := trace.Timed{Kind: trace.KindHold, Aux: uint16(trace.KindSelect), Pos: 3, G: 7, Stamp: 2, Start: ms1, Dur: 30 * time.Millisecond}
	sel.A = 1
	if tm := TimingOf(timingTrace([]trace.Event{sel}, timer(trace.WaitTimerChan, 5), self)); tm == nil || tm.Delayed.ID != 7 {
		t.Errorf("the timer's own goroutine held before its select on the timer: timing %+v", tm)
	}
	self.Pos = 4
	if tm := TimingOf(timingTrace([]trace.Event{sel}, timer(trace.WaitTimerChan, 5), self)); tm != nil {
		t.Errorf("the timer's own goroutine held before an unrelated Lock: timing %+v", *tm)
	}
	spawn := trace.Event{Kind: trace.KindGoSpawn, G: 0, Obj: 6, Pos: 3, Pre: 2, Post: 2, A: 11}
	tm = TimingOf(timingTrace([]trace.Event{spawn}, timer(trace.WaitTimerFunc, 6), h))
	if tm == nil || tm.WaitKind != "func-timer" {
		t.Errorf("a fired function timer (a context's deadline): timing %+v", tm)
	}
}

func TestRoundUp2(t *testing.T) {
	for in, want := range map[time.Duration]time.Duration{
		994512 * time.Nanosecond: time.Millisecond, 4998 * time.Microsecond: 5 * time.Millisecond,
		20 * time.Millisecond: 20 * time.Millisecond, 846 * time.Microsecond: 850 * time.Microsecond, 7: 7,
	} {
		if got := roundUp2(in); got != want {
			t.Errorf("roundUp2(%v) = %v, want %v", in, got, want)
		}
	}
}
