package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/goweave/goweave/fuzzer"
)

// lineProgress reports a campaign's progress as plain lines, for logs without a terminal
// (CI): one when each test starts, one when it ends (runs, bugs, how its runs ended), and
// a heartbeat (elapsed, runs, bugs so far) on each tick after which nothing was printed.
type lineProgress struct {
	w  io.Writer
	mu sync.Mutex
	// latest is the newest progress; quiet says a line was printed since the last tick.
	latest fuzzer.Progress
	quiet  bool
	// stageStart is when the latest stage was reported (its Elapsed is from the
	// campaign's start to then).
	stageStart time.Time
	now        func() time.Time
	done       chan struct{}
}

// newLineProgress starts a lineProgress that beats on each receive from tick (nil: no
// heartbeat) until the campaign is done.
func newLineProgress(w io.Writer, tick <-chan time.Time) *lineProgress {
	l := &lineProgress{w: w, done: make(chan struct{}), now: time.Now}
	if tick != nil {
		go l.beat(tick)
	}
	return l
}

func (l *lineProgress) beat(tick <-chan time.Time) {
	for {
		select {
		case <-l.done:
			return
		case <-tick:
			l.heartbeat()
		}
	}
}

// heartbeat prints the progress so far, unless a line was printed since the last one.
func (l *lineProgress) heartbeat() {
	l.mu.Lock()
	defer l.mu.Unlock()
	// A tick may win the beat goroutine's select after the end (both ready): say nothing then.
	select {
	case <-l.done:
		return
	default:
	}
	if !l.quiet && l.latest.Stage != "" {
		// Still building: say so, with the time since the campaign started.
		elapsed := l.latest.Elapsed + l.now().Sub(l.stageStart)
		fmt.Fprintf(l.w, "goweave: %s: still %s\n", elapsed.Round(time.Second), stageVerb(l.latest.Stage))
	} else if !l.quiet && l.latest.TestsTotal > 0 {
		p := l.latest
		fmt.Fprintf(l.w, "goweave: %s: %s, %s so far, %d of %d tests done\n", p.Elapsed.Round(time.Second),
			runCount(p.Runs, p.CutShort), bugsAndHints(p.Findings, p.Hints, p.Timing), p.TestsDone, p.TestsTotal)
	}
	l.quiet = false
}

// update is the progress callback of the campaign.
func (l *lineProgress) update(p fuzzer.Progress) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.latest = p
	if p.Stage != "" {
		fmt.Fprintf(l.w, "goweave: %s\n", p.Stage)
		l.stageStart = l.now()
		l.quiet = true
		return
	}
	if p.Started {
		fmt.Fprintf(l.w, "goweave: %s.%s: started\n", p.Package, p.Test)
		l.quiet = true
	}
	for _, e := range p.Ended {
		statuses := ""
		if len(e.Statuses) > 0 {
			statuses = "; " + statusSummary(e.Statuses)
		}
		fmt.Fprintf(l.w, "goweave: %s.%s: %s in %s, %s%s\n", e.Package, e.Test, runCount(e.Runs, e.CutShort),
			e.Elapsed.Round(100*time.Millisecond), bugCount(e), statuses)
		l.quiet = true
	}
	if p.Done {
		fmt.Fprintf(l.w, "goweave: %d tests, %s, %s in %s\n", p.TestsTotal, runCount(p.Runs, p.CutShort), bugsAndHints(p.Findings, p.Hints, p.Timing), p.Elapsed.Round(100*time.Millisecond))
		l.stopLocked()
	}
}

// stop ends the heartbeat (a campaign that failed before it ran reports no Done).
func (l *lineProgress) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopLocked()
}

func (l *lineProgress) stopLocked() {
	select {
	case <-l.done:
	default:
		close(l.done)
	}
}

// statusSummary lists run counts by status, most frequent first: "85 pass, 26 panic".
func statusSummary(statuses map[string]int) string {
	names := make([]string, 0, len(statuses))
	for s := range statuses {
		names = append(names, s)
	}
	slices.SortFunc(names, func(a, b string) int {
		if statuses[a] != statuses[b] {
			return statuses[b] - statuses[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(names))
	for i, s := range names {
		parts[i] = fmt.Sprintf("%d %s", statuses[s], s)
	}
	return strings.Join(parts, ", ")
}

// runCount says how many runs finished (confirmation runs included) and, apart, how many
// the time budget stopped unfinished: the same count for a test and for the campaign.
func runCount(finished, cut int) string {
	if cut == 0 {
		return count(finished, "run")
	}
	return fmt.Sprintf("%s (%d more cut by the time budget)", count(finished, "run"), cut)
}

// bugCount is the bugs found by a test's runs, and says when none of them was analyzed:
// then "0 bugs" would claim what nobody checked.
func bugCount(e fuzzer.TestEnded) string {
	switch {
	case e.FailsAfter != nil:
		return "failed in every run after its first pass, for state it left (see the errors)"
	case e.Failing != nil && e.Failing.Unsteered:
		return "failed in every run, unsteered too (see the errors)"
	case e.Failing != nil:
		return "failed in every run (see the errors)"
	case e.Runs == 0:
		return "no run finished (see the warnings)"
	case e.Analyzed == 0:
		return count(e.Findings, "bug") + ", no run analyzed (see the warnings)"
	case e.Statuses[string(fuzzer.StatusTimeout)] == e.Runs:
		// what a run stopped at its time limit did not reach is unknown
		return bugsAndHints(e.Findings, e.Hints, e.Timing) + ", every run stopped at the time limit (see the warnings)"
	case e.Analyzed < e.Runs:
		return fmt.Sprintf("%s, %d of %s analyzed", bugsAndHints(e.Findings, e.Hints, e.Timing), e.Analyzed, count(e.Runs, "run"))
	}
	return bugsAndHints(e.Findings, e.Hints, e.Timing)
}

// bugsAndHints is "2 bugs", with the refuted predictions and the timing-dependent failures
// apart: "0 bugs, 1 refuted prediction, 1 timing-dependent failure".
func bugsAndHints(bugs, hints, timing int) string {
	s := count(bugs, "bug")
	if hints > 0 {
		s += ", " + count(hints, "refuted prediction")
	}
	if timing > 0 {
		s += ", " + count(timing, "timing-dependent failure")
	}
	return s
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// stageVerb shortens a stage for the heartbeat: "preparing the patched runtime ..." up to
// its first parenthesis.
func stageVerb(stage string) string {
	if i := strings.Index(stage, " ("); i > 0 {
		return stage[:i]
	}
	return stage
}
