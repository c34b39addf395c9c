package campaign

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/goweave/goweave/fuzzer/build"
)

// A test that failed in every run, one of them unsteered, failed with goweave's runtime all
// the same: recording on, and the race detector when the campaign has it. Before the
// campaign calls it broken, it runs the test as the user would, up to plainRuns times:
// the package built once by go test -c with the campaign's -race and -vet, without the
// overlay, the recorder or a schedule, each run a process of its own (as each go test
// -count=1 is: a panic ends only its run, and no run inherits another's globals), stopping
// at the first pass. Every run failing says the failure does not depend on the schedule
// (broken.go has the statistics); a pass says it may: the campaign resumes the test. The
// check starts as soon as the test looks broken, and the test starts no run until it ends.

// plainLimit bounds the build of the package without goweave's runtime (the go command's
// cache usually has most of it).
const plainLimit = 2 * time.Minute

// plainRuns is how many plain runs, all failing, call a failure schedule-independent, and
// plainRunTime how long they may take together (at least one runs): a slow test gets fewer.
// 32 runs of a failing test cost tens of milliseconds each (process start and the test).
const (
	plainRuns    = 32
	plainRunTime = 30 * time.Second
)

// Outcomes of a check (TestFailure.Plain).
const (
	plainFail  = "fail"  // every run failed
	plainPass  = "pass"  // its first run passed
	plainFlaky = "flaky" // some runs failed, then one passed
)

// plainCheck is one test's check; its fields are written before done is closed.
type plainCheck struct {
	done           chan struct{}
	outcome        string // plainFail, plainPass, plainFlaky, or "": it could not tell (why)
	why            string
	command        string
	passed, failed int // runs that passed (0 or 1: it stops at the first) and failed
	// started and finished bound the test's wait (finished is written before done is
	// closed); credited: a resumed test got the wait back (creditPlainWaits).
	started, finished time.Time
	credited          bool
	// probeFrom: the test's started runs when its probe began, after every plain run
	// failed (broken.go, stage 2b); 0: not begun.
	probeFrom int
}

// ended reports whether p's result is in.
func (p *plainCheck) ended() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// plainChecks are the checks of a campaign; nil: the campaign makes none (Record, Rerun).
type plainChecks struct {
	ctx   context.Context
	sem   chan struct{} // checks building at once
	ended chan struct{} // a check ended (buffered: the loop looks at its tests again)
}

// plainResult is what a check saw.
type plainResult struct {
	outcome, why, command string
	passed, failed        int
}

// plainGoTest runs test of the package in dir under plain go test; a variable for tests.
var plainGoTest = runPlainGoTest

// checkPlain starts the check of t once it looks broken (force: it failed in every run,
// one unsteered, however few).
func (c *campaign) checkPlain(t *testState, force bool) {
	if c.plain == nil || t.plain != nil || (!force && !t.looksBroken()) {
		return
	}
	p := &plainCheck{done: make(chan struct{}), started: time.Now()}
	t.plain = p
	race, vet, timeout := c.cfg.Race, c.cfg.Vet, 3*c.cfg.RunTimeout
	dir, name, checks := t.bin.Dir, t.name, c.plain
	go func() {
		defer func() {
			p.finished = time.Now()
			close(p.done)
			select {
			case checks.ended <- struct{}{}:
			default:
			}
		}()
		select {
		case checks.sem <- struct{}{}:
			defer func() { <-checks.sem }()
		case <-checks.ctx.Done():
			p.why = "the campaign was stopped"
			return
		}
		r := plainGoTest(checks.ctx, dir, name, race, vet, timeout)
		p.outcome, p.why, p.command, p.passed, p.failed = r.outcome, r.why, r.command, r.passed, r.failed
	}()
}

// plainPending reports whether t waits for its check, or for the probe it calls for to
// begin (broken.go: beginProbes).
func (t *testState) plainPending() bool {
	return t.plain != nil && (!t.plain.ended() || t.probeDue())
}

// plainEnded is what the campaign's loop waits on for a check to end; nil: no checks.
func (c *campaign) plainEnded() <-chan struct{} {
	if c.plain == nil {
		return nil
	}
	return c.plain.ended
}

// creditPlainWaits gives each test resumed after a plain pass the time it waited for its
// check: the wait was the check's, not the test's fuzzing (redis's regression test without
// -race: the check's 16 runs of 20,000 iterations took its whole -time 45s, and it resumed
// to no run).
func (c *campaign) creditPlainWaits() {
	for _, t := range c.tests {
		p := t.plain
		if p == nil || p.credited || t.done || !p.ended() || (p.outcome != plainPass && p.outcome != plainFlaky) {
			continue
		}
		p.credited = true
		t.budgetFrom = t.budgetFrom.Add(p.finished.Sub(p.started))
	}
}

// anyPlainPending reports whether a test waits for its check (the loop must not end).
func (c *campaign) anyPlainPending() bool {
	for _, t := range c.tests {
		if t.plainPending() && !t.done {
			return true
		}
	}
	return false
}

// waitPlain checks every test that failed in every run, one unsteered, and not checked yet
// (it ended before brokenAfter runs), and waits for all checks.
func (c *campaign) waitPlain() {
	if c.plain == nil {
		return
	}
	for _, t := range c.tests {
		if f := t.failing(); f != nil && f.Unsteered && c.plain.ctx.Err() == nil {
			c.checkPlain(t, true)
		}
	}
	for _, t := range c.tests {
		if t.plain != nil {
			<-t.plain.done
		}
	}
}

// plainOf fills f's Plain fields from t's check, when it has ended.
func (t *testState) plainOf(f *TestFailure) {
	if t.plain == nil || !t.plain.ended() {
		return
	}
	p := t.plain
	f.Plain, f.PlainCommand, f.PlainNote, f.PlainPassed, f.PlainFailed = p.outcome, p.command, p.why, p.passed, p.failed
}

// runPlainGoTest builds the package in dir with go test -c (the campaign's -race and -vet)
// and runs test in it up to plainRuns times, each a process of its own, until one passes.
// command is the go test command each run stands for.
func runPlainGoTest(ctx context.Context, dir, test string, race bool, vet string, timeout time.Duration) plainResult {
	var flags []string
	if race {
		flags = append(flags, "-race")
	}
	if vet != "" {
		flags = append(flags, "-vet="+vet)
	}
	pattern := "^(" + regexp.QuoteMeta(test) + ")$"
	r := plainResult{command: "go " + strings.Join(append(append([]string{"test", "-count=1"}, flags...), "-timeout", timeout.String(), "-run", pattern, "."), " ")}
	tmp, err := os.MkdirTemp("", "goweave-plain-")
	if err != nil {
		r.why = err.Error()
		return r
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "plain.test")
	bctx, cancel := context.WithTimeout(ctx, plainLimit)
	defer cancel()
	cmd := exec.CommandContext(bctx, "go", append(append([]string{"test", "-c", "-o", bin}, flags...), ".")...)
	cmd.Env = plainEnv(os.Environ())
	build.InDir(cmd, dir)
	out, err := cmd.CombinedOutput()
	switch {
	case errors.Is(bctx.Err(), context.DeadlineExceeded):
		r.why = fmt.Sprintf("its build did not end within %s", plainLimit)
		return r
	case ctx.Err() != nil:
		r.why = "the campaign was stopped"
		return r
	case err != nil:
		r.why = "it did not build: " + firstLine(strings.TrimSpace(string(out)))
		return r
	}
	if _, err := os.Stat(bin); err != nil {
		r.why = "it ran no test" // a package with no test files
		return r
	}
	start := time.Now()
	for r.failed < plainRuns && (r.failed == 0 || time.Since(start) < plainRunTime) {
		outcome, why := runPlainOnce(ctx, bin, dir, test, timeout)
		switch outcome {
		case plainPass:
			r.passed = 1
			r.outcome = plainPass
			if r.failed > 0 {
				r.outcome = plainFlaky
			}
			return r
		case plainFail:
			r.failed++
			continue
		}
		if r.failed == 0 {
			r.why = why
			return r
		}
		break // a later run could not tell: the failures so far stand
	}
	r.outcome = plainFail
	return r
}

// runPlainOnce runs test once in the test binary bin, in dir, and says whether it failed,
// passed, or why that cannot be told.
func runPlainOnce(ctx context.Context, bin, dir, test string, timeout time.Duration) (outcome, why string) {
	limit := timeout + 10*time.Second
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.count=1", "-test.v", "-test.timeout", timeout.String(), "-test.run", "^("+regexp.QuoteMeta(test)+")$")
	cmd.Env = plainEnv(os.Environ())
	build.InDir(cmd, dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	text := out.String()
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "", fmt.Sprintf("it did not end within %s", limit)
	case ctx.Err() != nil:
		return "", "the campaign was stopped"
	case err == nil && strings.Contains(text, "no tests to run"):
		return "", "it ran no test"
	case err == nil:
		return plainPass, ""
	case collisionIn(text) != "":
		// It runs beside the campaign's runs of the package (collide.go): a fixed port or
		// lock file they hold fails it as it fails the second of two runs.
		return "", "it failed on a resource the campaign's runs of the package may hold at the same time: " + collisionIn(text)
	case strings.Contains(text, "--- FAIL: "+test+" ") || strings.Contains(text, "\npanic: ") || strings.HasPrefix(text, "panic: "):
		return plainFail, ""
	}
	return "", "it ended so: " + firstLine(strings.TrimSpace(text))
}

// plainEnv is env without goweave's variables: the check runs as the user's go test would.
func plainEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GOWEAVE_") {
			out = append(out, kv)
		}
	}
	return out
}
