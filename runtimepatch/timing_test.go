package runtimepatch

import (
	"testing"
	"time"

	"github.com/goweave/goweave/analysis/trace"
)

// timedAt returns the timing records of kind k at marker name of testdata/pkg.
func timedAt(t *testing.T, tr *trace.Trace, k trace.Kind, pkg, name string) []trace.Timed {
	t.Helper()
	pos, ok := markersIn(t, pkg)[name]
	if !ok {
		t.Fatalf("no marker @%s in testdata/%s", name, pkg)
	}
	var out []trace.Timed
	for _, r := range tr.Timed {
		if r.Kind == k && tr.Position(r.Pos).String() == pos {
			out = append(out, r)
		}
	}
	return out
}

// Every wait bounded by the clock is a TimedWait record at the user's call, with its
// duration, what it waits with, and the timer's object id where the timer's fire or
// goroutine shows it; a ticker's names its channel; the records are not events.
func TestTimedWaitRecords(t *testing.T) {
	tr := record(t, buildEvents(t, false), "TestTimedWaits", nil).tr
	want := []struct {
		name string
		aux  uint16
		dur  time.Duration
	}{
		{"timed.sleep", trace.WaitSleep, 2 * time.Millisecond},
		{"timed.after", trace.WaitTimerChan, 3 * time.Millisecond},
		{"timed.afterfunc", trace.WaitTimerFunc, 4 * time.Millisecond},
		{"timed.ctx", trace.WaitTimerFunc, 5 * time.Millisecond},
		{"timed.stopped", trace.WaitTimerChan, time.Hour},
	}
	var test uint64
	for _, w := range want {
		rs := timedAt(t, tr, trace.KindTimedWait, "events", w.name)
		if len(rs) != 1 {
			t.Errorf("@%s: %d TimedWait records, want 1: %+v", w.name, len(rs), tr.Timed)
			continue
		}
		r := rs[0]
		// The duration is taken from the timer's due time when it is set: a little less
		// than asked, never more.
		if r.Aux != w.aux || r.Dur > w.dur || r.Dur < w.dur-w.dur/2 || r.Start <= 0 {
			t.Errorf("@%s: %+v, want aux %d, duration %v", w.name, r, w.aux, w.dur)
		}
		if test == 0 {
			test = r.G
		}
		if r.G != test {
			t.Errorf("@%s: goroutine %d, want the test's %d", w.name, r.G, test)
		}
		if (w.aux == trace.WaitSleep) != (r.Obj == 0) {
			t.Errorf("@%s: object %d", w.name, r.Obj)
		}
	}
	// A ticker's one record names its channel a clock's: its period, its first tick.
	if rs := timedAt(t, tr, trace.KindTimedWait, "events", "timed.ticker"); len(rs) != 1 || rs[0].Aux != trace.WaitTicker ||
		rs[0].Dur != time.Millisecond || rs[0].Obj == 0 || rs[0].G != test {
		t.Errorf("a ticker's TimedWait records: %+v, want one of its 1ms period and channel", rs)
	}
	fired := map[uint64]bool{}
	for _, e := range tr.Events {
		if e.Kind == trace.KindTimedWait || e.Kind == trace.KindHold {
			t.Errorf("timing record among the events: %+v", e)
		}
		if e.Kind == trace.KindTimerFire || e.Kind == trace.KindGoSpawn && e.G == 0 {
			fired[e.Obj] = true
		}
	}
	for _, name := range []string{"timed.after", "timed.afterfunc", "timed.ctx"} {
		if rs := timedAt(t, tr, trace.KindTimedWait, "events", name); len(rs) == 1 && !fired[rs[0].Obj] {
			t.Errorf("@%s: no fire of its timer %d in the trace\n%s", name, rs[0].Obj, dump(tr))
		}
	}
}

// A goroutine a delay parks has a Hold record at its held operation, of at least the
// delay's window when the window ended it; so has a select a preference held for its whole
// window; a free run has none.
func TestHoldRecords(t *testing.T) {
	m := markersIn(t, "replay")
	free := record(t, buildReplay(t), "TestOnceFlow", nil)
	for _, r := range free.tr.Timed {
		if r.Kind == trace.KindHold {
			t.Errorf("free run: hold %+v", r)
		}
	}
	s := &schedText{}
	s.delay("1.1", trace.KindOnceDo, m["flow.a"], 1, 30, "1.2", trace.KindOnceDo, m["flow.b"], 2)
	r := runSchedule(t, "TestOnceFlow", s.String())
	holds := timedAt(t, r.tr, trace.KindHold, "replay", "flow.a")
	if len(holds) != 1 {
		t.Fatalf("%d holds at @flow.a, want 1: %+v", len(holds), r.tr.Timed)
	}
	h := holds[0]
	do := oneM(t, r.tr, trace.KindOnceDo, "flow.a", m)
	if h.Aux != uint16(trace.KindOnceDo) || h.G != do.G || h.Dur < 30*time.Millisecond || h.Stamp > do.Pre {
		t.Errorf("hold %+v, want the Do of g%d held at least the 30 ms window, ended before its request %d", h, do.G, do.Pre)
	}

	// A select preference whose case never comes holds the select, ready case and all, for
	// its window (no object: not a wait for one case); one whose case comes while case a
	// was ready held the select until then, for that case's channel (Obj).
	s = &schedText{}
	s.selectPref(m["pref.select"], 30, 1)
	r = runSchedule(t, "TestSelectPreference", s.String(), "GOWEAVE_TEST_NO_PARTNER=1")
	holds = timedAt(t, r.tr, trace.KindHold, "replay", "pref.select")
	sel := oneM(t, r.tr, trace.KindSelect, "pref.select", m)
	if len(holds) != 1 || holds[0].Aux != uint16(trace.KindSelect) || holds[0].G != sel.G || holds[0].Dur < 30*time.Millisecond || holds[0].Obj != 0 {
		t.Errorf("preference without partner: holds %+v, want one of the select's goroutine g%d, at least 30 ms", holds, sel.G)
	}
	s = &schedText{}
	s.selectPref(m["pref.select"], 2000, 1)
	r = runSchedule(t, "TestSelectPreference", s.String())
	sel = oneM(t, r.tr, trace.KindSelect, "pref.select", m)
	holds = timedAt(t, r.tr, trace.KindHold, "replay", "pref.select")
	if len(holds) != 1 || holds[0].Obj == 0 || len(sel.Cases) != 2 || holds[0].Obj != sel.Cases[1].Obj || holds[0].G != sel.G {
		t.Errorf("preference whose case came while the other was ready: holds %+v, want one for case 1's channel (select %+v)", holds, sel)
	}
}

// A select preference for its timer's case, which comes while another case is ready: the
// hold names the timer's channel, whose TimedWait it outlasted (analysis.TimingOf's
// own-clock rule). A preference whose case is ready at its first look holds nothing.
func TestClockPreferenceHold(t *testing.T) {
	m := markersIn(t, "replay")
	s := &schedText{}
	s.selectPref(m["clock.select"], 2000, 1)
	r := runSchedule(t, "TestSelectClockPreference", s.String())
	holds := timedAt(t, r.tr, trace.KindHold, "replay", "clock.select")
	waits := timedAt(t, r.tr, trace.KindTimedWait, "replay", "clock.after")
	if len(holds) != 1 || len(waits) != 1 {
		t.Fatalf("holds %+v, waits %+v: want one of each", holds, waits)
	}
	h, w := holds[0], waits[0]
	if h.Obj == 0 || h.Obj != w.Obj || w.Aux != trace.WaitTimerChan || w.End() <= h.Start || w.End() > h.End() {
		t.Errorf("hold %+v, timer %+v: want the hold for the timer's channel, spanning its expiry", h, w)
	}
	// The same for a ticker's case: no deadline, the hold names the ticker's channel.
	s = &schedText{}
	s.selectPref(m["tick.select"], 2000, 1)
	r = runSchedule(t, "TestSelectTickerPreference", s.String())
	holds = timedAt(t, r.tr, trace.KindHold, "replay", "tick.select")
	waits = timedAt(t, r.tr, trace.KindTimedWait, "replay", "tick.ticker")
	if len(holds) != 1 || len(waits) != 1 || holds[0].Obj == 0 || holds[0].Obj != waits[0].Obj || waits[0].Aux != trace.WaitTicker ||
		waits[0].End() > holds[0].End() {
		t.Errorf("ticker: holds %+v, waits %+v: want one hold for the ticker's channel, after its first tick", holds, waits)
	}
	s = &schedText{}
	s.selectPref(m["clock.select"], 2000, 0)
	r = runSchedule(t, "TestSelectClockPreference", s.String())
	if holds := timedAt(t, r.tr, trace.KindHold, "replay", "clock.select"); len(holds) != 0 {
		t.Errorf("preference for the ready case: holds %+v, want none", holds)
	}
}

// A timer due before its goroutine had set it (here one of 0; a short one on a loaded
// machine) is recorded as expiring at once (1 ns), not dropped: a test's 1 ms deadline
// that the load ate is still a wait bounded by the clock.
func TestDueTimerRecord(t *testing.T) {
	tr := record(t, buildReplay(t), "TestDueTimer", nil).tr
	rs := timedAt(t, tr, trace.KindTimedWait, "replay", "due.timer")
	if len(rs) != 1 || rs[0].Aux != trace.WaitTimerChan || rs[0].Dur != 1 || rs[0].Obj == 0 {
		t.Errorf("TimedWait records %+v, want one of 1 ns for the timer's channel", rs)
	}
}

// A Reset of a timer or a ticker is a TimedWait of its own at the Reset, with the new
// duration (period), on the object of the creation's record: a channel timer, a function
// timer and a ticker, also under asynctimerchan=1 (a module whose go.mod predates Go 1.23,
// whose channel timers the runtime does not know by their channel; the setting is gone from
// Go 1.27, where such a module's timers are synchronous).
func TestTimerResetRecords(t *testing.T) {
	modes := []string{"", "GODEBUG=asynctimerchan=1"}
	if testdataRelease(t).Minor >= "go1.27" {
		modes = modes[:1]
	}
	for _, godebug := range modes {
		tr := record(t, buildEvents(t, false), "TestTimerResets", nil, godebug).tr
		for _, w := range []struct {
			name string
			aux  uint16
			dur  time.Duration
		}{
			{"reset.timer", trace.WaitTimerChan, 3 * time.Millisecond},
			{"reset.func", trace.WaitTimerFunc, 4 * time.Millisecond},
			{"reset.ticker", trace.WaitTicker, 2 * time.Millisecond},
		} {
			made := timedAt(t, tr, trace.KindTimedWait, "events", w.name)
			reset := timedAt(t, tr, trace.KindTimedWait, "events", w.name+".reset")
			if len(made) != 1 || len(reset) != 1 {
				t.Errorf("%s: @%s: %d TimedWait records, @%s.reset: %d, want 1 each: %+v", godebug, w.name, len(made), w.name, len(reset), tr.Timed)
				continue
			}
			m, r := made[0], reset[0]
			if m.Dur < time.Hour-time.Minute || m.Aux != w.aux {
				t.Errorf("%s: @%s: %+v, want aux %d, an hour", godebug, w.name, m, w.aux)
			}
			// Taken from the due time when it is set: a little less than asked, never more
			// (a ticker's is its period).
			if r.Aux != w.aux || r.Dur > w.dur || r.Dur < w.dur/2 || r.Obj == 0 || r.Obj != m.Obj || r.G != m.G || !(r.Stamp > m.Stamp) {
				t.Errorf("%s: @%s.reset: %+v, want aux %d, %v, after the creation's record %+v, on its object", godebug, w.name, r, w.aux, w.dur, m)
			}
		}
	}
}
