package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goweave/goweave/fuzzer"
)

// syncBuffer is a bytes.Buffer safe for the heartbeat goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Without a terminal: a line when a test starts and when it ends, a heartbeat on a tick
// after which nothing was printed (none after a tick that followed a line), a last line.
// Before the first run, the builds (minutes on a cold cache) are announced and the
// heartbeat says they go on, so that a CI log is not silent meanwhile.
func TestLineProgressStages(t *testing.T) {
	var out syncBuffer
	l := newLineProgress(&out, nil)
	clock := time.Date(2026, 11, 26, 1, 0, 0, 0, time.UTC)
	l.now = func() time.Time { return clock }
	l.update(fuzzer.Progress{Stage: "preparing the patched runtime for the module's Go toolchain"})
	l.update(fuzzer.Progress{Stage: "building the tests with the patched runtime of go1.27.4 (the first build: about a minute)", Elapsed: 2 * time.Second})
	l.heartbeat() // a line since the last beat: none
	clock = clock.Add(58 * time.Second)
	l.heartbeat()
	l.update(fuzzer.Progress{Package: "p", Test: "TestA", Started: true, TestsTotal: 1})
	want := "goweave: preparing the patched runtime for the module's Go toolchain\n" +
		"goweave: building the tests with the patched runtime of go1.27.4 (the first build: about a minute)\n" +
		"goweave: 1m0s: still building the tests with the patched runtime of go1.27.4\n" +
		"goweave: p.TestA: started\n"
	if got := out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	l.stop()
}

func TestLineProgress(t *testing.T) {
	var out syncBuffer
	tick := make(chan time.Time)
	l := newLineProgress(&out, tick)
	l.update(fuzzer.Progress{Package: "p", Test: "TestA", Started: true, TestsTotal: 2})
	l.heartbeat() // a line since the last beat: none
	l.update(fuzzer.Progress{Package: "p", Test: "TestA", TestsTotal: 2, Runs: 40, Findings: 1, Elapsed: 10 * time.Second})
	l.heartbeat()
	l.update(fuzzer.Progress{TestsTotal: 2, TestsDone: 1, Runs: 41, Findings: 1, Elapsed: 11 * time.Second,
		Ended: []fuzzer.TestEnded{{Package: "p", Test: "TestA", Runs: 41, CutShort: 1, Analyzed: 41, Findings: 1, Statuses: map[string]int{"pass": 30, "panic": 11}, Elapsed: 10 * time.Second}}})
	// The second test's only run was not analyzed, the third's was cut: not "0 bugs".
	l.update(fuzzer.Progress{TestsTotal: 3, TestsDone: 3, Runs: 42, CutShort: 2, Findings: 1, Elapsed: 12 * time.Second, Done: true,
		Ended: []fuzzer.TestEnded{{Package: "p", Test: "TestB", Runs: 1, Statuses: map[string]int{"pass": 1}, Elapsed: time.Second},
			{Package: "p", Test: "TestC", CutShort: 1, Statuses: map[string]int{}, Elapsed: time.Second}}})
	want := "goweave: p.TestA: started\n" +
		"goweave: 10s: 40 runs, 1 bug so far, 0 of 2 tests done\n" +
		"goweave: p.TestA: 41 runs (1 more cut by the time budget) in 10s, 1 bug; 30 pass, 11 panic\n" +
		"goweave: p.TestB: 1 run in 1s, 0 bugs, no run analyzed (see the warnings); 1 pass\n" +
		"goweave: p.TestC: 0 runs (1 more cut by the time budget) in 1s, no run finished (see the warnings)\n" +
		"goweave: 3 tests, 42 runs (2 more cut by the time budget), 1 bug in 12s\n"
	if got := out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// The beat goroutine may take this tick (its select sees the end and the tick at once
	// when it runs late) or may have returned; either way nothing more is printed.
	select {
	case tick <- time.Time{}:
	case <-time.After(100 * time.Millisecond):
	}
	l.heartbeat()
	if strings.Count(out.String(), "\n") != 6 {
		t.Errorf("lines after the end:\n%s", out.String())
	}
}

// A test's line says when it failed in every run, and counts refuted predictions apart
// from bugs.
func TestBugCountFailingAndHints(t *testing.T) {
	for _, c := range []struct {
		e    fuzzer.TestEnded
		want string
	}{
		{fuzzer.TestEnded{Runs: 3, Analyzed: 3, Failing: &fuzzer.TestFailure{Runs: 3, Unsteered: true}}, "failed in every run, unsteered too (see the errors)"},
		{fuzzer.TestEnded{Runs: 5, Analyzed: 5, Failing: &fuzzer.TestFailure{Runs: 5}}, "failed in every run (see the errors)"},
		{fuzzer.TestEnded{Runs: 9, Analyzed: 9, FailsAfter: &fuzzer.TestFailure{Runs: 8, PassedFirst: 1, Unsteered: true}}, "failed in every run after its first pass, for state it left (see the errors)"},
		{fuzzer.TestEnded{Runs: 9, Analyzed: 9, Findings: 1, Hints: 2}, "1 bug, 2 refuted predictions"},
		{fuzzer.TestEnded{Runs: 9, Analyzed: 9}, "0 bugs"},
		{fuzzer.TestEnded{Runs: 2, Analyzed: 2, Statuses: map[string]int{"timeout": 2}}, "0 bugs, every run stopped at the time limit (see the warnings)"},
		{fuzzer.TestEnded{Runs: 2, Analyzed: 2, Statuses: map[string]int{"timeout": 1, "pass": 1}}, "0 bugs"},
	} {
		if got := bugCount(c.e); got != c.want {
			t.Errorf("bugCount(%+v) = %q, want %q", c.e, got, c.want)
		}
	}
}
