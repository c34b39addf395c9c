package analysis

import (
	"testing"
	"time"

	"github.com/goweave/goweave/analysis/trace"
)

// setting is a TimedWait of channel timer 80 at w_test.go:10 by the test goroutine (7),
// recorded at stamp, from start for d: its creation or a Reset.
func setting(stamp uint64, start int64, d time.Duration) trace.Timed {
	return trace.Timed{Kind: trace.KindTimedWait, Aux: trace.WaitTimerChan, Pos: 3, G: 7, Obj: 80, Stamp: stamp, Start: start, Dur: d}
}

func timerFire(stamp uint64) trace.Event {
	return trace.Event{Kind: trace.KindTimerFire, Obj: 80, Pre: stamp, Post: stamp}
}

// A Reset is the timer's wait from then on: made for an hour, reset to 20 ms, it fired
// while the worker was held from 2 to 30 ms: evidence, named as the Reset.
func TestTimingOfResetTimer(t *testing.T) {
	tm := TimingOf(timingTrace([]trace.Event{timerFire(40)},
		setting(5, 0, time.Hour), setting(10, ms1, 20*time.Millisecond), hold(9, 2*ms1, 28*time.Millisecond)))
	if tm == nil {
		t.Fatal("no timing: the reset timer expired while the worker was held")
	}
	if tm.Wait != "a timer reset to 20ms (Timer.Reset)" || tm.WaitKind != "timer" || tm.WaitMs != 20 || tm.At.Line != 10 || tm.Delayed.ID != 9 {
		t.Errorf("timing %+v", *tm)
	}
}

// A setting replaced by a Reset before the timer fired never expired: made for 20 ms (due
// at 20 ms, inside the hold), reset at stamp 10 to 40 ms (due at 41 ms, after the hold),
// fired after the Reset: no evidence. Nor for a timer stopped before its due time (no fire)
// and then reset to a due time inside the hold, which never fired either.
func TestTimingOfReplacedSetting(t *testing.T) {
	replaced := timingTrace([]trace.Event{timerFire(45)},
		setting(5, 0, 20*time.Millisecond), setting(10, ms1, 40*time.Millisecond), hold(9, 2*ms1, 28*time.Millisecond))
	if tm := TimingOf(replaced); tm != nil {
		t.Errorf("a setting a Reset replaced before any fire: timing %+v", *tm)
	}
	// The earlier setting fired (stamp 8) before the Reset: that one is evidence.
	fired := timingTrace([]trace.Event{timerFire(8)},
		setting(5, 0, 20*time.Millisecond), setting(10, 25*ms1, 40*time.Millisecond), hold(9, 2*ms1, 28*time.Millisecond))
	if tm := TimingOf(fired); tm == nil || tm.Wait != "a timer of 20ms (time.After or time.NewTimer)" {
		t.Errorf("a setting that fired before the Reset: timing %+v, want the first setting's", tm)
	}
}
