package campaign

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"

	"github.com/goweave/goweave/fuzzer/build"
)

// A test that failed in every run, one of them unsteered, failed with goweave's runtime all
// the same: recording on, and the race detector when the campaign has it. Plain go test can
// pass it (an Example printing wall-clock intervals the recording stretches), so before the
// report says the test fails without goweave, the campaign runs it once as the user would:
// go test with the campaign's -race and -vet, without the overlay, the recorder or a
// schedule, within plainLimit. The check starts as soon as the test is found broken, beside
// the campaign's other runs, and the report waits for it.

// plainLimit bounds a check beyond the test's own -timeout: the build of the package
// without goweave's runtime (the go command's cache usually has most of it).
const plainLimit = 2 * time.Minute

// Outcomes of a check (TestFailure.Plain).
const (
	plainFail = "fail"
	plainPass = "pass"
)

// plainCheck is one test's check; its fields are written before done is closed.
type plainCheck struct {
	done    chan struct{}
	outcome string // plainFail, plainPass, or "": it could not tell (why)
	why     string
	command string
}

// plainChecks are the checks of a campaign; nil: the campaign makes none (Record, Rerun).
type plainChecks struct {
	ctx context.Context
	sem chan struct{} // checks building at once
}

// plainGoTest runs test of the package in dir under plain go test; a variable for tests.
var plainGoTest = runPlainGoTest

// checkPlain starts the check of t once it is known to fail unsteered.
func (c *campaign) checkPlain(t *testState, force bool) {
	if c.plain == nil || t.plain != nil || (!force && !t.broken()) {
		return
	}
	p := &plainCheck{done: make(chan struct{})}
	t.plain = p
	race, vet, timeout := c.cfg.Race, c.cfg.Vet, 3*c.cfg.RunTimeout
	dir, name := t.bin.Dir, t.name
	go func() {
		defer close(p.done)
		select {
		case c.plain.sem <- struct{}{}:
			defer func() { <-c.plain.sem }()
		case <-c.plain.ctx.Done():
			p.why = "the campaign was stopped"
			return
		}
		p.outcome, p.why, p.command = plainGoTest(c.plain.ctx, dir, name, race, vet, timeout)
	}()
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
	if t.plain == nil {
		return
	}
	select {
	case <-t.plain.done:
		f.Plain, f.PlainCommand, f.PlainNote = t.plain.outcome, t.plain.command, t.plain.why
	default:
	}
}

// runPlainGoTest runs go test -count=1 -run '^(test)$' in dir with the campaign's -race and
// -vet, and says whether the test failed, passed, or why that cannot be told.
func runPlainGoTest(ctx context.Context, dir, test string, race bool, vet string, timeout time.Duration) (outcome, why, command string) {
	args := []string{"test", "-count=1"}
	if race {
		args = append(args, "-race")
	}
	if vet != "" {
		args = append(args, "-vet="+vet)
	}
	args = append(args, "-timeout", timeout.String(), "-run", "^("+regexp.QuoteMeta(test)+")$", ".")
	command = "go " + strings.Join(args, " ")
	limit := timeout + plainLimit
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Env = plainEnv(os.Environ())
	build.InDir(cmd, dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	text := out.String()
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "", fmt.Sprintf("it did not end within %s", limit), command
	case ctx.Err() != nil:
		return "", "the campaign was stopped", command
	case err == nil && strings.Contains(text, "no tests to run"):
		return "", "it ran no test", command
	case err == nil:
		return plainPass, "", command
	case strings.Contains(text, "[build failed]") || strings.Contains(text, "[setup failed]"):
		return "", "it did not build: " + firstLine(strings.TrimSpace(text)), command
	case collisionIn(text) != "":
		// It runs beside the campaign's runs of the package (collide.go): a fixed port or
		// lock file they hold fails it as it fails the second of two runs.
		return "", "it failed on a resource the campaign's runs of the package may hold at the same time: " + collisionIn(text), command
	case strings.Contains(text, "--- FAIL: "+test+" ") || strings.Contains(text, "\npanic: ") || strings.HasPrefix(text, "panic: "):
		return plainFail, "", command
	}
	return "", "it ended so: " + firstLine(strings.TrimSpace(text)), command
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
