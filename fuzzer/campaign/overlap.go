package campaign

import (
	"fmt"
	"strings"
	"time"

	"github.com/goweave/goweave/fuzzer/run"
)

// go test runs one process of a package's test binary at a time; a campaign runs up to -p.
// Tests that share something between processes without naming an OS error for it (a fixed
// file in the package directory that each test removes and regrows, as tidwall/buntdb's
// data.db) then fail in ways no schedule of the program causes: "no such file or
// directory", a wrong size. collide.go catches the collisions whose output names one; this
// rule catches the rest by when they happen, not by what they say.
//
// The rule: a failure (failingRun: a test failure or a panic no detector explains) of a run
// that overlapped another process of its package is not evidence until some run of the
// package has failed alone (no other process of the package at any moment of it). Until
// then such a run is discarded (not counted, no finding), its schedule is queued to run
// again first, alone (the request it ran under, or for a free run a replay of its
// recorded order: a failure that needs the schedule comes back, one that needs the other
// process does not), and the package's runs go one at a time. The first lone failure makes
// the package's failures the program's: its runs overlap again and count from then on. A
// campaign that ends with the package still serial says so (Report.Warnings,
// TestResult.Serial), with the first failure it discarded: a failure that showed only under
// overlap (the load of a second process) is named there, not lost silently.
//
// Only failures wait for a lone witness: a deadlock, a hang, a race the detector saw, a
// panic a detector explains (a close of a closed channel) are the program's whatever ran
// beside them, and a bug found that way costs nothing more than before.

// rerun is a lone rerun of a discarded run.
type rerun struct {
	test *testState
	req  *RunRequest
	of   int // the discarded run's index
}

// overlapFailed handles run res of its package p that overlapped another process of p and
// reports whether the run is discarded (not evidence).
func (c *campaign) overlapFailed(p *pkgRuns, res jobResult) bool {
	if !c.lone || p.loneFailed || !failingRun(res.run) {
		return false
	}
	t := res.test
	p.discarded++
	t.discarded++
	if p.suspect == "" {
		p.suspect = fmt.Sprintf("%s run %d failed while another process of the package ran: %s", t.name, res.index, failureLine(res.run.Run))
	}
	req := res.request
	if req == nil {
		req = loneReplay(res)
	}
	if req != nil {
		p.reruns = append(p.reruns, rerun{test: t, req: req, of: res.index})
	} else {
		p.notRerun++
	}
	return true
}

// aloneEnded notes run res of p, which had p to itself: a lone failure makes p's failures
// the program's, and p's runs may overlap again (unless collide.go serialised them).
func (c *campaign) aloneEnded(p *pkgRuns, res jobResult) {
	if res.rerunOf > 0 && res.run.Status == run.StatusPass {
		p.rerunsPassed++
	}
	if !p.loneFailed && failingRun(res.run) {
		p.loneFailed, p.suspect = true, ""
	}
}

// loneReplay is a request that replays free run res (its recorded order, its selects'
// cases): nil when its trace could not be read.
func loneReplay(res jobResult) *RunRequest {
	tr := res.run.Recorded
	if tr == nil {
		return nil
	}
	b, err := replayOf(tr)
	if err != nil {
		return nil
	}
	return &RunRequest{Strategy: "replay", Parent: res.index, Recipe: b,
		Note: fmt.Sprintf("run %d again, alone: it failed while another process of its package ran", res.index)}
}

// rerunHead returns p's next lone rerun, dropping those whose test will not run again.
func (c *campaign) rerunHead(p *pkgRuns, now time.Time) *rerun {
	for len(p.reruns) > 0 {
		r := &p.reruns[0]
		if r.test.inflight > 0 || c.canStart(r.test, now) {
			return r
		}
		p.reruns = p.reruns[1:]
		p.notRerun++
	}
	return nil
}

// takeRerun returns the lone rerun t runs next, or nil.
func (c *campaign) takeRerun(t *testState) *rerun {
	p := c.pkg(t)
	if len(p.reruns) == 0 || p.reruns[0].test != t {
		return nil
	}
	r := p.reruns[0]
	p.reruns = p.reruns[1:]
	return &r
}

// serialWarnings name each package whose runs were one at a time at the campaign's end for
// this rule, and set TestResult.Serial of its tests.
func (c *campaign) serialWarnings(rep *Report) []string {
	var ws []string
	for i := range rep.Tests {
		if p := c.pkgs[rep.Tests[i].Package]; p != nil && p.suspect != "" {
			rep.Tests[i].Serial = p.suspect
		}
	}
	for _, t := range c.tests {
		p := c.pkgs[t.bin.Package]
		if p == nil || p.suspect == "" || p.warned {
			continue
		}
		p.warned = true
		reruns := fmt.Sprintf("%d rerun alone, %d passed", p.discarded-p.notRerun-len(p.reruns), p.rerunsPassed)
		if n := p.notRerun + len(p.reruns); n > 0 {
			reruns += fmt.Sprintf(", %d not rerun before the time budget ended", n)
		}
		ws = append(ws, fmt.Sprintf("runs of package %s went one at a time, as go test runs them, until the end: %s; no run of the package failed alone, so its %s that overlapped another process of the package %s not counted (%s). Tests that share a file or another resource between processes fail so; a failure that shows only beside a second process is not reported",
			t.bin.Package, p.suspect, plural(p.discarded, "failing run"), isAre(p.discarded), reruns))
	}
	return ws
}

func isAre(n int) string {
	if n == 1 {
		return "was"
	}
	return "were"
}

// failureLine is the line of r's output that says how it failed, for the warning.
func failureLine(r *run.Run) string {
	if r.Panic != "" {
		return "panic: " + firstLine(r.Panic)
	}
	last := ""
	for line := range strings.Lines(r.Output) {
		s := strings.TrimSpace(line)
		switch {
		case s == "", s == "FAIL", strings.HasPrefix(s, "=== "), strings.HasPrefix(s, "--- "), strings.HasPrefix(s, "FAIL\t"), strings.HasPrefix(s, "exit status"):
			continue
		}
		last = s
		if strings.Contains(s, "_test.go:") {
			return s // the test's own message
		}
	}
	if last == "" {
		return string(r.Status)
	}
	return last
}
