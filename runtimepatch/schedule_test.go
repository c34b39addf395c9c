package runtimepatch

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
)

// These tests run testdata/replay built with the overlay under schedules
// (GOWEAVE_SCHEDULE) and check what the trace shows: the order enforced,
// replays, delays, select preferences, divergences and deadlocks.

// TestScheduleConformance runs a test binary with every conformance file of
// fuzzer/schedule/testdata: valid files are followed (META schedule names
// them), invalid ones end the process at start-up with status 2 and a
// message naming the file, before any trace is written.
func TestScheduleConformance(t *testing.T) {
	bin := buildReplay(t)
	dir := filepath.Join("..", "fuzzer", "schedule", "testdata")
	for _, valid := range []bool{true, false} {
		sub := "invalid"
		if valid {
			sub = "valid"
		}
		files, err := filepath.Glob(filepath.Join(dir, sub, "*.sched"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no conformance files in %s/%s (%v)", dir, sub, err)
		}
		for _, f := range files {
			t.Run(sub+"/"+filepath.Base(f), func(t *testing.T) {
				abs, _ := filepath.Abs(f)
				out := filepath.Join(t.TempDir(), "trace.gwt")
				cmd := binCommand(context.Background(), bin, "-test.run=^TestNothing$", "-test.timeout=0")
				cmd.Env = append(os.Environ(), EnvTrace+"="+out, EnvModule+"="+testdataDir(t), EnvSchedule+"="+abs)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				err := cmd.Run()
				if valid {
					if err != nil {
						t.Fatalf("valid schedule: %v\n%s", err, stderr.String())
					}
					tr, err := trace.ReadFile(out)
					if err != nil {
						t.Fatal(err)
					}
					if tr.Meta["schedule"] != abs {
						t.Errorf("META schedule = %q, want %q", tr.Meta["schedule"], abs)
					}
					return
				}
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 2 {
					t.Fatalf("invalid schedule: process ended with %v, want exit status 2\n%s", err, stderr.String())
				}
				if want := "goweave: schedule " + abs + ": "; !strings.HasPrefix(stderr.String(), want) {
					t.Errorf("stderr %q does not start with %q", stderr.String(), want)
				}
				if _, err := os.Stat(out); err == nil {
					t.Errorf("a trace was written although the schedule was rejected")
				}
			})
		}
	}
}

// TestScheduleLogicalIDs: META testgoid names the goroutine running the
// test, and the runtime's logical ids match the trace's spawn tree: a
// schedule naming 1.2 holds the goroutine the trace shows as the test's
// second child.
func TestScheduleLogicalIDs(t *testing.T) {
	m := markersIn(t, "replay")
	free := record(t, buildReplay(t), "TestOrderLock", nil)
	add := oneM(t, free.tr, trace.KindWgAdd, "lock.add", m)
	if got := free.tr.Meta["testgoid"]; got == "" || got != strconv.FormatUint(add.G, 10) {
		t.Fatalf("META testgoid = %q, want the goroutine of the test's wg.Add, %d", got, add.G)
	}
	ids := logicalIDs(t, free.tr)
	if ids[oneM(t, free.tr, trace.KindLock, "lock.a", m).G] != "1.1" || ids[oneM(t, free.tr, trace.KindLock, "lock.b", m).G] != "1.2" {
		t.Fatalf("logical ids from the trace: %v", ids)
	}
}

// orderCase is a program of two concurrent operations, 1.1's first in a
// free run, and a schedule that reverses them.
type orderCase struct {
	test     string
	schedule func(m map[string]string) *schedText
	reversed func(t *testing.T, tr *trace.Trace, m map[string]string) bool
}

var orderCases = []orderCase{
	{"TestOrderSend", func(m map[string]string) *schedText {
		s := &schedText{window: 2000}
		s.op("1", trace.KindWgAdd, m["send.add"], 1)
		s.op("1.2", trace.KindChanSend, m["send.b"], 1)
		s.op("1.1", trace.KindChanSend, m["send.a"], 1)
		return s
	}, func(t *testing.T, tr *trace.Trace, m map[string]string) bool {
		return oneM(t, tr, trace.KindChanSend, "send.b", m).A == 1 && oneM(t, tr, trace.KindChanSend, "send.a", m).A == 2
	}},
	{"TestOrderLock", func(m map[string]string) *schedText {
		s := &schedText{window: 2000}
		s.op("1", trace.KindWgAdd, m["lock.add"], 1)
		s.op("1.2", trace.KindLock, m["lock.b"], 1)
		s.op("1.2", trace.KindUnlock, m["lock.b.unlock"], 1)
		s.op("1.1", trace.KindLock, m["lock.a"], 1)
		return s
	}, func(t *testing.T, tr *trace.Trace, m map[string]string) bool {
		return oneM(t, tr, trace.KindLock, "lock.b", m).Post < oneM(t, tr, trace.KindLock, "lock.a", m).Post
	}},
	{"TestOrderOnce", func(m map[string]string) *schedText {
		s := &schedText{window: 2000}
		s.op("1", trace.KindWgAdd, m["once.add"], 1)
		s.op("1.2", trace.KindOnceDo, m["once.b"], 1)
		s.op("1.1", trace.KindOnceDo, m["once.a"], 1)
		return s
	}, func(t *testing.T, tr *trace.Trace, m map[string]string) bool {
		return oneM(t, tr, trace.KindOnceDo, "once.b", m).Flags.Has(trace.FlagSuccess) &&
			!oneM(t, tr, trace.KindOnceDo, "once.a", m).Flags.Has(trace.FlagSuccess)
	}},
	{"TestOrderRecv", func(m map[string]string) *schedText {
		s := &schedText{window: 2000}
		s.op("1", trace.KindWgAdd, m["recv.add"], 1)
		s.op("1.2", trace.KindChanRecv, m["recv.b"], 1)
		s.op("1.1", trace.KindChanRecv, m["recv.a"], 1)
		s.op("1", trace.KindChanSend, m["recv.send"], 1)
		return s
	}, func(t *testing.T, tr *trace.Trace, m map[string]string) bool {
		return oneM(t, tr, trace.KindChanRecv, "recv.b", m).A == 1 && oneM(t, tr, trace.KindChanRecv, "recv.a", m).A == 2
	}},
}

// TestScheduleOrderReverses: a schedule that reverses the natural order of
// two concurrent sends, locks, Once.Do calls or receives makes the trace
// show the reversed order, in at least 18 of 20 runs (the rate is logged).
func TestScheduleOrderReverses(t *testing.T) {
	const attempts = 20
	m := markersIn(t, "replay")
	for _, c := range orderCases {
		t.Run(c.test, func(t *testing.T) {
			free := record(t, buildReplay(t), c.test, nil)
			if c.reversed(t, free.tr, m) {
				t.Logf("note: this free run already had the reversed order")
			}
			text := c.schedule(m).String()
			ok := 0
			for i := 0; i < attempts; i++ {
				r := runSchedule(t, c.test, text)
				if r.err != nil {
					t.Fatalf("run %d failed: %v\n%s", i, r.err, r.output)
				}
				if metaInt(r, "schedule.diverged") != 0 || metaInt(r, "schedule.admitted") != metaInt(r, "schedule.ops") {
					t.Fatalf("run %d: the order was not followed: META %v\n%s", i, r.tr.Meta, dump(r.tr))
				}
				if c.reversed(t, r.tr, m) {
					ok++
				}
			}
			t.Logf("%s: reversed order in %d/%d runs", c.test, ok, attempts)
			if ok < attempts*9/10 {
				t.Errorf("reversed order in %d/%d runs, want >= %d", ok, attempts, attempts*9/10)
			}
		})
	}
}

// TestScheduleReplay records runs of a contended program and replays each
// with an order made from its trace: every replay must show the recorded
// per-object order (lock acquisitions, channel partners, Once winner).
func TestScheduleReplay(t *testing.T) {
	const runs = 6
	same, distinct := 0, map[string]bool{}
	for i := 0; i < runs; i++ {
		rec := record(t, buildReplay(t), "TestContended", nil)
		if rec.err != nil {
			t.Fatalf("recording: %v\n%s", rec.err, rec.output)
		}
		want := objectOrders(t, rec.tr)
		distinct[strings.Join(sortedValues(want), "|")] = true
		s := replaySchedule(t, rec.tr, 2000)
		rep := runSchedule(t, "TestContended", s.String())
		if rep.err != nil {
			t.Fatalf("replay: %v\n%s", rep.err, rep.output)
		}
		if d := metaInt(rep, "schedule.diverged"); d != 0 {
			t.Fatalf("replay diverged at op %d of %d\n%s", d, len(s.ops), s.String())
		}
		got := objectOrders(t, rep.tr)
		if reflect.DeepEqual(got, want) {
			same++
			continue
		}
		for k, v := range want {
			if got[k] != v {
				t.Logf("replay %d: %s:\n  recorded %s\n  replayed %s", i, k, v, got[k])
			}
		}
	}
	t.Logf("replays with the recorded per-object order: %d/%d (%d distinct recorded orders)", same, runs, len(distinct))
	if same < runs-1 {
		t.Errorf("only %d of %d replays reproduced the recorded per-object order", same, runs)
	}
}

func sortedValues(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// TestScheduleDelay: delaying goroutine 1.1's Once.Do until 1.2's Do is
// admitted makes 1.2 run f; a delay whose until never comes ends by its
// window and is counted.
func TestScheduleDelay(t *testing.T) {
	m := markersIn(t, "replay")
	free := record(t, buildReplay(t), "TestOnceFlow", nil)
	t.Logf("free run: 1.1 ran f: %v", oneM(t, free.tr, trace.KindOnceDo, "flow.a", m).Flags.Has(trace.FlagSuccess))

	s := &schedText{}
	s.delay("1.1", trace.KindOnceDo, m["flow.a"], 1, 2000, "1.2", trace.KindOnceDo, m["flow.b"], 1)
	r := runSchedule(t, "TestOnceFlow", s.String())
	if !oneM(t, r.tr, trace.KindOnceDo, "flow.b", m).Flags.Has(trace.FlagSuccess) {
		t.Errorf("with the delay, 1.2's Do did not run f\n%s", dump(r.tr))
	}
	if got := metaInt(r, "schedule.delay.timeouts"); got != 0 {
		t.Errorf("delay timeouts = %d, want 0", got)
	}

	s = &schedText{}
	s.delay("1.1", trace.KindOnceDo, m["flow.a"], 1, 30, "1.2", trace.KindOnceDo, m["flow.b"], 2)
	r = runSchedule(t, "TestOnceFlow", s.String())
	if r.err != nil || metaInt(r, "schedule.delay.timeouts") != 1 {
		t.Errorf("delay until an op that never comes: err %v, META %v", r.err, r.tr.Meta)
	}
}

// TestScheduleSelectPreference: the select that always takes ready case a
// takes b when preferred and b's partner comes within the window; without a
// partner it falls back to a after the window and counts the timeout. A
// one-case select with default follows -1 (default at once) and 0 (wait for
// the case).
func TestScheduleSelectPreference(t *testing.T) {
	m := markersIn(t, "replay")
	chosen := func(r result) uint64 { return oneM(t, r.tr, trace.KindSelect, "pref.select", m).A }

	if c := chosen(record(t, buildReplay(t), "TestSelectPreference", nil)); c != 0 {
		t.Fatalf("free run chose case %d, want 0 (a is ready)", int64(c))
	}
	s := &schedText{}
	s.selectPref(m["pref.select"], 2000, 1)
	r := runSchedule(t, "TestSelectPreference", s.String())
	if c := chosen(r); c != 1 || metaInt(r, "schedule.select.timeouts") != 0 {
		t.Errorf("preferring case 1: chose %d, timeouts %d; want 1, 0\n%s", int64(c), metaInt(r, "schedule.select.timeouts"), dump(r.tr))
	}
	if e := oneM(t, r.tr, trace.KindSelect, "pref.select", m); e.B != 1 || e.Post == 0 || !e.Flags.Has(trace.FlagSuccess) {
		t.Errorf("preferred select record: seq %d post %d flags %s, want seq 1, completed, success", e.B, e.Post, e.Flags)
	}
	// The case the preference took, and a's buffered value, were both ready then: a
	// choice Go might have made at random (SelectCase b = 1).
	if e := oneM(t, r.tr, trace.KindSelect, "pref.select", m); len(e.Cases) != 2 || !e.Cases[0].Ready || !e.Cases[1].Ready {
		t.Errorf("preferred select's cases %+v, want both ready", e.Cases)
	}
	if p := oneM(t, r.tr, trace.KindChanSend, "pref.partner", m); p.A != 1 || p.Post == 0 {
		t.Errorf("partner send: seq %d post %d, want 1 and completed", p.A, p.Post)
	}

	s = &schedText{}
	s.selectPref(m["pref.select"], 30, 1)
	r = runSchedule(t, "TestSelectPreference", s.String(), "GOWEAVE_TEST_NO_PARTNER=1")
	if c := chosen(r); c != 0 || metaInt(r, "schedule.select.timeouts") != 1 {
		t.Errorf("preferring case 1 without partner: chose %d, timeouts %d; want 0, 1", int64(c), metaInt(r, "schedule.select.timeouts"))
	}

	s = &schedText{}
	s.selectPref(m["nb.ready"], 0, -1)
	s.selectPref(m["nb.late"], 2000, 0)
	r = runSchedule(t, "TestSelectNonBlocking", s.String())
	if e := oneM(t, r.tr, trace.KindSelect, "nb.ready", m); !e.Flags.Has(trace.FlagSuccess) || e.A != 0 {
		t.Errorf("-1 on a ready one-case select: flags %s case %d, want the ready case (Go never takes the default then)", e.Flags, int64(e.A))
	}
	if e := oneM(t, r.tr, trace.KindSelect, "nb.late", m); !e.Flags.Has(trace.FlagSuccess) || e.A != 0 {
		t.Errorf("0 on a one-case select ready after 5 ms: flags %s case %d, want the case taken", e.Flags, int64(e.A))
	}
	free := record(t, buildReplay(t), "TestSelectNonBlocking", nil)
	if e := oneM(t, free.tr, trace.KindSelect, "nb.late", m); e.Flags.Has(trace.FlagSuccess) {
		t.Logf("note: the free run's late select found its value ready")
	}
}

// TestScheduleDivergence: schedules that cannot be followed end the order,
// report the index of the op that did not come, and never hang.
func TestScheduleDivergence(t *testing.T) {
	m := markersIn(t, "replay")
	rec := record(t, buildReplay(t), "TestBranch", nil)
	base := replaySchedule(t, rec.tr, 5000)
	index := func(s *schedText, marker string) int {
		for i, op := range s.ops {
			if strings.Contains(op, " "+s.pos(m[marker])+" ") {
				return i + 1
			}
		}
		t.Fatalf("no op at @%s in\n%s", marker, s.String())
		return 0
	}
	check := func(name string, r result, diverged int) {
		t.Helper()
		if r.err != nil {
			t.Errorf("%s: the test failed: %v\n%s", name, r.err, r.output)
		}
		if got := metaInt(r, "schedule.diverged"); got != diverged {
			t.Errorf("%s: META schedule.diverged = %d, want %d (admitted %d)", name, got, diverged, metaInt(r, "schedule.admitted"))
		}
		if got := metaInt(r, "schedule.admitted"); got != diverged-1 {
			t.Errorf("%s: META schedule.admitted = %d, want %d", name, got, diverged-1)
		}
	}

	// The program takes the other branch: 1.1 locks at @branch.b while the
	// order waits for its lock at @branch.a. The window is 5 s: only the
	// immediate divergence rule makes this fast.
	r := runSchedule(t, "TestBranch", base.String(), "GOWEAVE_TEST_BRANCH=b")
	check("changed control flow", r, index(base, "branch.a"))

	// An op that never happens (a line this test never runs), inserted
	// before 1.1's first unlock.
	s := *base
	s.ops = append([]string(nil), base.ops...)
	at := index(&s, "branch.first")
	never := &schedText{fileNum: s.fileNum, files: s.files}
	never.op("1.1", trace.KindLock, m["dead.lock2"], 1)
	s.files, s.fileNum = never.files, never.fileNum
	s.ops = append(s.ops[:at], append(never.ops, s.ops[at:]...)...)
	r = runSchedule(t, "TestBranch", s.String())
	check("op that never happens", r, at+1)

	// A goroutine that never starts: everyone waits in the order (no false
	// deadlock report: the window's timer is pending), then runs free.
	s = schedText{window: 50, files: base.files, fileNum: base.fileNum}
	s.op("1.7", trace.KindLock, m["branch.first"], 1)
	s.ops = append(s.ops, base.ops...)
	r = runSchedule(t, "TestBranch", s.String())
	check("goroutine that never starts", r, 1)
	if r.tr.Meta["exit"] != "exit" || r.tr.Meta["exitcode"] != "0" {
		t.Errorf("goroutine that never starts: exit %s %s, want a normal exit", r.tr.Meta["exit"], r.tr.Meta["exitcode"])
	}
}

// TestScheduleDeadlock: a program that deadlocks by design, replayed under
// its recorded order (complete, then with one more op that never comes),
// still ends with the runtime's real deadlock report, after its blocking
// receive, with a complete trace.
func TestScheduleDeadlock(t *testing.T) {
	m := markersIn(t, "replay")
	rec := record(t, buildReplay(t), "TestDeadlock", nil)
	if rec.tr.Meta["exit"] != "deadlock" {
		t.Fatalf("free run: exit %q, want deadlock", rec.tr.Meta["exit"])
	}
	full := replaySchedule(t, rec.tr, 200)
	extra := *full
	tail := &schedText{fileNum: full.fileNum, files: full.files}
	tail.op("1.1", trace.KindLock, m["dead.lock"], 2)
	extra.ops = append(append([]string(nil), full.ops...), tail.ops...)
	extra.files = tail.files
	for _, c := range []struct {
		name     string
		s        *schedText
		diverged int
	}{{"complete order", full, 0}, {"order with an op that never comes", &extra, len(extra.ops)}} {
		r := runSchedule(t, "TestDeadlock", c.s.String())
		if r.tr.Meta["exit"] != "deadlock" || r.tr.Meta["message"] != "all goroutines are asleep - deadlock!" {
			t.Errorf("%s: exit %q message %q, want the deadlock report\n%s", c.name, r.tr.Meta["exit"], r.tr.Meta["message"], r.output)
		}
		if got := metaInt(r, "schedule.diverged"); got != c.diverged {
			t.Errorf("%s: diverged %d, want %d", c.name, got, c.diverged)
		}
		recv := oneM(t, r.tr, trace.KindChanRecv, "dead.recv", m)
		if recv.Post != 0 {
			t.Errorf("%s: the receive nobody sends to completed", c.name)
		}
		blocked := false
		for _, g := range r.tr.Goroutines {
			blocked = blocked || g.ID == recv.G && g.WaitReason == "chan receive" && g.LastEvent == recv.Index
		}
		if !blocked {
			t.Errorf("%s: the test goroutine is not listed blocked in its receive\n%s", c.name, dump(r.tr))
		}
	}
}

var (
	replayRaceOnce sync.Once
	replayRaceBin  string
	replayRaceErr  error
)

// TestScheduleRace follows an order, a select preference and a delay in a
// -race build: the parking, the watchdog and the nested select must work with
// the race runtime and report no race of their own. The stuck check is armed
// (as in every fuzzer run): goroutines the schedule parks for their turn, with
// everything else blocked, are not stuck.
func TestScheduleRace(t *testing.T) {
	skipRaceEmulated(t)
	replayRaceOnce.Do(func() {
		replayRaceBin, replayRaceErr = buildTestdata(t, "replay", filepath.Join(workDir, "replay-race.test"), "-race")
	})
	if replayRaceErr != nil {
		failBuild(t, replayRaceErr)
	}
	m := markersIn(t, "replay")
	c := orderCases[1] // locks
	env, _ := writeSchedule(t, c.schedule(m).String())
	armed := EnvTimeLimit + "=" + strconv.Itoa(TimeLimitSignal)
	for i := 0; i < 3; i++ {
		r := record(t, replayRaceBin, c.test, nil, env, armed)
		if r.err != nil || strings.Contains(r.output, "DATA RACE") || r.tr.Meta["stuck"] != "" {
			t.Fatalf("run %d: %v, META stuck=%q\n%s", i, r.err, r.tr.Meta["stuck"], r.output)
		}
		if !c.reversed(t, r.tr, m) {
			t.Errorf("run %d: the order was not reversed under -race", i)
		}
	}
	s := &schedText{}
	s.selectPref(m["pref.select"], 2000, 1)
	env, _ = writeSchedule(t, s.String())
	r := record(t, replayRaceBin, "TestSelectPreference", nil, env, armed)
	if r.err != nil || strings.Contains(r.output, "DATA RACE") || r.tr.Meta["stuck"] != "" {
		t.Fatalf("select preference: %v, META stuck=%q\n%s", r.err, r.tr.Meta["stuck"], r.output)
	}
	if e := oneM(t, r.tr, trace.KindSelect, "pref.select", m); e.A != 1 {
		t.Errorf("select preference under -race chose case %d, want 1", int64(e.A))
	}
	// A delay whose until never comes parks 1.1 for its whole window while every
	// other goroutine is blocked or done.
	s = &schedText{}
	s.delay("1.1", trace.KindOnceDo, m["flow.a"], 1, 600, "1.2", trace.KindOnceDo, m["flow.b"], 2)
	env, _ = writeSchedule(t, s.String())
	r = record(t, replayRaceBin, "TestOnceFlow", nil, env, armed)
	if r.err != nil || r.tr.Meta["stuck"] != "" || metaInt(r, "schedule.delay.timeouts") != 1 {
		t.Errorf("delay until an op that never comes: err %v, META %v\n%s", r.err, r.tr.Meta, r.output)
	}
}

// TestScheduleAdaptiveWindow: an overdue head whose goroutine is still
// computing gets more windows (at most 3 more): a 200 ms window does not
// diverge on a goroutine that computes for 500 ms first, but does when the
// goroutine is blocked on a channel for that time. The margins are wide
// because the window is wall time: the busy head needs the watchdog to fire
// less than 300 ms late and arrives 300 ms before the last extension ends;
// the blocked head would arrive within the extensions had it been given them.
func TestScheduleAdaptiveWindow(t *testing.T) {
	m := markersIn(t, "replay")
	s := &schedText{window: 200}
	s.op("1.1", trace.KindLock, m["slow.lock"], 1)
	r := runSchedule(t, "TestSlowHead", s.String())
	if d, x := metaInt(r, "schedule.diverged"), metaInt(r, "schedule.window.extensions"); d != 0 || x < 1 || x > 3 {
		t.Errorf("busy head: diverged %d after %d extensions, want 0 after 1-3", d, x)
	}
	r = runSchedule(t, "TestSlowHead", s.String(), "GOWEAVE_TEST_BLOCKED=1")
	// Before the test goroutine starts the head counts as busy (its spawner is on the way),
	// so a loaded machine may give the blocked head one extension; it must still diverge.
	if d, x := metaInt(r, "schedule.diverged"), metaInt(r, "schedule.window.extensions"); d != 1 || x > 1 {
		t.Errorf("blocked head: diverged %d after %d extensions, want 1 after 0 or 1", d, x)
	}
}

// TestScheduleSynctest: schedule waits inside a testing/synctest bubble are
// invisible to the bubble (zz_goweave_synctest.go): a select preference's
// window neither deadlocks the bubble nor sends into it from outside, and a
// goroutine held by a delay is not idle, so the fake clock does not jump.
func TestScheduleSynctest(t *testing.T) {
	m := markersIn(t, "replay")
	s := &schedText{}
	s.selectPref(m["synctest.prefer"], 30, 0)
	r := runSchedule(t, "TestSynctestPrefer", s.String())
	if r.err != nil || metaInt(r, "schedule.select.timeouts") != 1 {
		t.Fatalf("preferring the never-served case in a bubble: %v, timeouts %d; want a pass after one timeout\n%s",
			r.err, metaInt(r, "schedule.select.timeouts"), r.output)
	}

	free := record(t, buildReplay(t), "TestSynctestHeld", nil)
	if free.err != nil {
		t.Fatalf("free run: %v\n%s", free.err, free.output)
	}
	ids := logicalIDs(t, free.tr)
	sender := ids[oneM(t, free.tr, trace.KindChanSend, "synctest.held", m).G]
	receiver := ids[oneM(t, free.tr, trace.KindChanRecv, "synctest.recv", m).G]
	s = &schedText{}
	// Hold the send until a second receive that never comes: the delay ends by its window.
	s.delay(sender, trace.KindChanSend, m["synctest.held"], 1, 30, receiver, trace.KindChanRecv, m["synctest.recv"], 2)
	r = runSchedule(t, "TestSynctestHeld", s.String())
	if r.err != nil || metaInt(r, "schedule.delay.held") != 1 {
		t.Fatalf("holding a send in a bubble: %v, held %d; want a pass with the send held once\n%s",
			r.err, metaInt(r, "schedule.delay.held"), r.output)
	}
}

// TestScheduleSelectFeasible: select preferences steer only to runs the Go
// runtime can produce. Both selects of TestSelectCancelled have ctx.Done()
// ready since before they were reached; preferring their errc cases (the
// receive, and the send that would meet it) may delay them, but a goroutine
// waiting in a select for one case past a ready one, or parked on errc alone
// so that the other's select finds errc ready, is no run of the program. Both
// must take ctx.Done() after their window, counted as timeouts.
func TestScheduleSelectFeasible(t *testing.T) {
	m := markersIn(t, "replay")
	s := &schedText{}
	s.selectPref(m["cancel.acquire"], 30, 1)   // the receive from errc (ctx.Done() is case 0)
	s.selectPref(m["cancel.construct"], 30, 0) // the send on errc (sends come first)
	r := runSchedule(t, "TestSelectCancelled", s.String())
	if r.err != nil {
		t.Fatalf("run: %v\n%s", r.err, r.output)
	}
	acquire := oneM(t, r.tr, trace.KindSelect, "cancel.acquire", m)
	construct := oneM(t, r.tr, trace.KindSelect, "cancel.construct", m)
	if acquire.A != 0 || construct.A != 1 {
		t.Errorf("acquire took case %d, construct case %d; want ctx.Done() in both (0 and 1): errc's send and receive met although ctx.Done() was ready before either select\n%s",
			int64(acquire.A), int64(construct.A), r.output)
	}
	if got := metaInt(r, "schedule.select.timeouts"); got < 1 {
		t.Errorf("select timeouts = %d, want at least 1 (neither preferred case can become ready; one of the selects may give up at once, see below)", got)
	}

	// Two selects preferring the two ends of one rendezvous: the one that finds the
	// other looking gives its preference up and blocks in its select, and they meet
	// at once; waiting for each other would end only with a window (timeouts 1).
	s = &schedText{}
	s.selectPref(m["meet.send"], 2000, 0)
	s.selectPref(m["meet.recv"], 2000, 0)
	r = runSchedule(t, "TestSelectRendezvous", s.String())
	if r.err != nil {
		t.Fatalf("run: %v\n%s", r.err, r.output)
	}
	if c := oneM(t, r.tr, trace.KindSelect, "meet.recv", m).A; c != 0 {
		t.Errorf("the receiving select took case %d, want 0 (c)", int64(c))
	}
	if got := metaInt(r, "schedule.select.timeouts"); got != 0 {
		t.Errorf("select timeouts = %d, want 0: the two ends of c waited for each other until a window ended", got)
	}
}
