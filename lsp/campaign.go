package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/goweave/goweave/fuzzer"
)

// A campaignRequest asks for the tests of the package in dir to be fuzzed: all of them,
// or the one named test.
type campaignRequest struct {
	dir    string
	test   string
	reason string // shown in progress ("opened", "saved", "requested")
}

// A campaign is a running fuzzing campaign.
type campaign struct {
	id     int
	req    campaignRequest
	ctx    context.Context
	cancel context.CancelFunc
	// stale: the package was edited while it ran, so its findings describe old code
	// and are dropped.
	stale    bool
	progress fuzzer.Progress
}

// campaigns schedules campaigns: at most maxCampaigns run at once, one per package;
// the rest wait in a queue.
type campaigns struct {
	s       *Server
	mu      sync.Mutex
	running []*campaign
	queue   []campaignRequest
	nextID  int
	stopped bool // after shutdown nothing starts any more

	// lensWake asks the lens refresher (refreshLoop) for one more workspace/codeLens/refresh;
	// its buffer of one coalesces requests made while one is in flight.
	lensWake      chan struct{}
	refresherOnce sync.Once
	// lensAsked is signalled by each textDocument/codeLens request (buffer of one).
	lensAsked chan struct{}
	warned    warningsShown // campaign warnings shown to the user (warnings.go)
}

func newCampaigns(s *Server) *campaigns {
	return &campaigns{s: s, lensWake: make(chan struct{}, 1), lensAsked: make(chan struct{}, 1)}
}

// background schedules a campaign over the package in dir when background fuzzing is
// on, the package is selected by the packages setting, and it is not being fuzzed.
func (c *campaigns) background(dir, reason string) {
	s := c.s
	settings := s.currentSettings()
	if !settings.BackgroundFuzzing || !hasTestFiles(dir) {
		return
	}
	folder, err := s.folderOf(dir)
	if err != nil {
		s.log.Info("not fuzzed in the background", "reason", err)
		return
	}
	if !packageSelected(folder, dir, settings.Packages) {
		return
	}
	c.mu.Lock()
	// A campaign that is ending (its context done) is no reason to skip: a save just as it
	// ends must not be lost. The new one starts when it is gone (startNext).
	busy := slices.ContainsFunc(c.running, func(cp *campaign) bool { return cp.req.dir == dir && !cp.stale && cp.ctx.Err() == nil }) ||
		slices.ContainsFunc(c.queue, func(r campaignRequest) bool { return r.dir == dir })
	c.mu.Unlock()
	if busy {
		return
	}
	c.enqueue(campaignRequest{dir: dir, reason: reason})
}

// request schedules a campaign the user asked for, replacing the package's running
// or queued one.
func (c *campaigns) request(req campaignRequest) {
	c.cancel(req.dir, false)
	c.enqueue(req)
}

func (c *campaigns) enqueue(req campaignRequest) {
	c.mu.Lock()
	c.queue = slices.DeleteFunc(c.queue, func(r campaignRequest) bool { return r.dir == req.dir })
	c.queue = append(c.queue, req)
	c.mu.Unlock()
	c.startNext()
}

// startNext starts queued campaigns while there is room.
func (c *campaigns) startNext() {
	max := c.s.currentSettings().MaxCampaigns
	c.mu.Lock()
	defer c.mu.Unlock()
	for !c.stopped && len(c.running) < max {
		i := slices.IndexFunc(c.queue, func(r campaignRequest) bool {
			return !slices.ContainsFunc(c.running, func(cp *campaign) bool { return cp.req.dir == r.dir })
		})
		if i < 0 {
			return
		}
		req := c.queue[i]
		c.queue = slices.Delete(c.queue, i, i+1)
		c.nextID++
		cp := &campaign{id: c.nextID, req: req}
		cp.ctx, cp.cancel = context.WithCancel(c.s.ctx)
		c.running = append(c.running, cp)
		c.s.goBackground("campaign over "+req.dir, func() { c.run(cp) })
	}
}

// cancel stops the campaigns of the package in dir (all packages when dir is empty)
// and drops queued ones; stale marks their findings as describing edited code.
func (c *campaigns) cancel(dir string, stale bool) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, cp := range c.running {
		if dir == "" || cp.req.dir == dir {
			cp.stale = cp.stale || stale
			cp.cancel()
			n++
		}
	}
	before := len(c.queue)
	c.queue = slices.DeleteFunc(c.queue, func(r campaignRequest) bool { return dir == "" || r.dir == dir })
	return n + before - len(c.queue)
}

// edited is called when a file of the package in dir changes in the editor.
func (c *campaigns) edited(dir string) {
	if c.cancel(dir, true) > 0 {
		c.s.log.Info("campaign cancelled by an edit; it restarts on save", "dir", dir)
	}
}

// cancelUnder stops the campaigns of the packages in or below folder, and drops queued ones.
func (c *campaigns) cancelUnder(folder string) {
	c.mu.Lock()
	var dirs []string
	for _, cp := range c.running {
		dirs = append(dirs, cp.req.dir)
	}
	for _, r := range c.queue {
		dirs = append(dirs, r.dir)
	}
	c.mu.Unlock()
	for _, d := range dirs {
		if within(folder, d) {
			c.cancel(d, false)
		}
	}
}

func (c *campaigns) stopAll() {
	c.mu.Lock()
	c.stopped = true
	c.mu.Unlock()
	c.cancel("", false)
}

func (c *campaigns) settingsChanged() { c.startNext() }

// status returns a copy of the running campaign of the package in dir.
func (c *campaigns) status(dir string) (campaign, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cp := range c.running {
		if cp.req.dir == dir && cp.ctx.Err() == nil {
			return *cp, true
		}
	}
	return campaign{}, false
}

// run runs one campaign to its end and publishes what it found.
func (c *campaigns) run(cp *campaign) {
	s := c.s
	defer func() {
		cp.cancel()
		c.mu.Lock()
		c.running = slices.DeleteFunc(c.running, func(x *campaign) bool { return x == cp })
		c.mu.Unlock()
		c.refreshLenses()
		c.startNext()
	}()

	req := cp.req
	run, label := "", relDir(s, req.dir)
	if req.test != "" {
		run = "^" + regexp.QuoteMeta(req.test) + "$"
		label = req.test + " in " + label
	}
	cfg := s.currentSettings().fuzzConfig(req.dir, run)
	cfg.Enough = c.publishAsFound(cp, cfg)
	prog := s.beginProgress("fuzzing "+label, req.reason, cp.cancel)
	c.refreshLenses()

	// The last campaign's findings are published before this one can publish its own.
	s.waitRestored(cp.ctx, req.dir)
	// The key of the sources as the build will read them; taken beside the build, and
	// compared after it (saveLastCampaign), so that a change meanwhile saves nothing.
	keyc := make(chan string, 1)
	if !s.goBackground("hashing the sources of "+req.dir, func() {
		key := ""
		defer func() { keyc <- key }()
		var err error
		// Not cancelled with the campaign or the server: a campaign that ended is saved.
		if key, err = sourceKey(context.WithoutCancel(s.ctx), req.dir, cfg); err != nil {
			s.log.Info("the campaign's findings will not be saved", "dir", req.dir, "reason", err)
		}
	}) {
		keyc <- ""
	}

	var lastReport time.Time
	report, err := c.fuzz(cp.ctx, cfg, func(p fuzzer.Progress) {
		c.mu.Lock()
		cp.progress = p
		c.mu.Unlock()
		if p.Done || p.Stage != "" || time.Since(lastReport) >= 200*time.Millisecond {
			lastReport = time.Now()
			percent := -1
			if p.TestsTotal > 0 {
				percent = 100 * p.TestsDone / p.TestsTotal
			}
			prog.report(progressMessage(p), percent)
			c.refreshLenses()
		}
	})

	stopped := cp.ctx.Err() != nil
	cp.cancel() // it is over: background() no longer counts it as running
	c.mu.Lock()
	stale := cp.stale
	final := cp.progress
	c.mu.Unlock()
	var buildErr *fuzzer.BuildError
	switch {
	case stale:
		prog.end(protocol.MessageTypeInfo, "canceled: the package was edited (fuzzing restarts on save)")
		return
	case errors.As(err, &buildErr):
		prog.end(protocol.MessageTypeError, fmt.Sprintf("failed: the tests of %s do not compile; fix them and save:\n%s", buildErr.Package, firstLines(buildErr.Output, 12)))
	case err != nil && stopped:
		prog.end(protocol.MessageTypeInfo, "canceled")
	case err != nil:
		prog.end(protocol.MessageTypeError, "failed: "+err.Error())
		return
	}
	if report == nil {
		return
	}
	c.publishReport(cp, cfg, report)
	c.showWarnings(cp, report)
	if buildErr == nil {
		// Saved, completed or stopped (a stopped campaign's findings hold too), on a
		// goroutine counted for shutdown even when shutdown stopped the campaign: the
		// campaign ends without waiting for it, so that a save of the file waiting for its
		// end does not wait for the save too.
		s.work.Add(1) // c.run is counted: the group is not at zero
		go func() {
			defer s.work.Done()
			if key := <-keyc; key != "" {
				if err := s.saveLastCampaign(req.dir, key, cfg, report.Findings); err != nil {
					s.log.Info("the campaign's findings are not saved", "dir", req.dir, "reason", err)
				}
			}
		}()
	}
	if err == nil {
		c.reportOutcome(cp, prog, report, final)
	}
}

// publishAsFound returns a Config.Enough hook that publishes the findings of each test
// as soon as they are found, long before the campaign ends. It never ends a test early.
func (c *campaigns) publishAsFound(cp *campaign, cfg fuzzer.Config) func(fuzzer.TestID, []fuzzer.Finding) bool {
	var mu sync.Mutex
	published := map[string]int{} // test -> findings published
	return func(id fuzzer.TestID, found []fuzzer.Finding) bool {
		mu.Lock()
		defer mu.Unlock()
		c.mu.Lock()
		stale := cp.stale
		c.mu.Unlock()
		if stale || cp.ctx.Err() != nil || len(found) == published[id.Test] {
			return false
		}
		published[id.Test] = len(found)
		placed := make([]*storedFinding, 0, len(found))
		for _, f := range found {
			placed = append(placed, c.s.place(f))
		}
		c.s.publishAll(c.s.findings.replace(cp.req.dir, id.Test, cfg, placed))
		return false
	}
}

// fuzz runs the engine, turning a panic in it into an error so that the campaign ends
// properly (progress ended, user told).
func (c *campaigns) fuzz(ctx context.Context, cfg fuzzer.Config, progress func(fuzzer.Progress)) (report *fuzzer.Report, err error) {
	defer func() {
		if r := recover(); r != nil {
			report, err = nil, fmt.Errorf("the fuzzing engine crashed: %v (please report this bug)", r)
		}
	}()
	return c.s.engine.Fuzz(ctx, cfg, progress)
}

// publishReport turns a campaign's findings into diagnostics.
func (c *campaigns) publishReport(cp *campaign, cfg fuzzer.Config, report *fuzzer.Report) {
	s := c.s
	placed := make([]*storedFinding, 0, len(report.Findings))
	for _, f := range report.Findings {
		placed = append(placed, s.place(f))
	}
	cfg.Enough = nil
	s.publishAll(s.findings.replace(cp.req.dir, cp.req.test, cfg, placed))
}

// reportOutcome ends the progress of a finished campaign and tells the user about
// what needs their attention: no tests, a missing test, crashing tests.
func (c *campaigns) reportOutcome(cp *campaign, prog *progress, report *fuzzer.Report, final fuzzer.Progress) {
	s := c.s
	runs := 0
	for _, t := range report.Tests {
		runs += t.Runs
		if t.Status == string(fuzzer.StatusCrash) {
			s.tell(protocol.MessageTypeWarning, "test %s of %s crashed (no test output or a fatal signal); see the log of the campaign", t.Test, relDir(s, cp.req.dir))
		}
	}
	switch {
	case len(report.Tests) == 0 && cp.req.test != "":
		prog.end(protocol.MessageTypeWarning, fmt.Sprintf("no test %s in %s (save the file if the test is new)", cp.req.test, relDir(s, cp.req.dir)))
	case len(report.Tests) == 0:
		prog.end(protocol.MessageTypeWarning, fmt.Sprintf("no tests to fuzz in %s", relDir(s, cp.req.dir)))
	default:
		prog.end(protocol.MessageTypeInfo, fmt.Sprintf("completed: %s, %s%s%s", plural(runs, "run"), plural(len(report.Findings), "finding"), unfinishedCount(report), warningCount(report)))
	}
}

// refreshLenses asks the client to ask for code lenses again, so that the lenses show the
// campaigns' state as it is now: called with every progress report, so the lens above a
// test counts the runs the status bar counts. The request goes out from refreshLoop, never
// blocking the campaign, and requests made meanwhile collapse into one.
func (c *campaigns) refreshLenses() {
	s := c.s
	s.mu.Lock()
	supported := s.caps.codeLensRefresh
	s.mu.Unlock()
	if !supported {
		return
	}
	c.refresherOnce.Do(func() { s.goBackground("code lens refresh", c.refreshLoop) })
	select {
	case c.lensWake <- struct{}{}:
	default: // a refresh is already pending
	}
}

// lensRequested notes a textDocument/codeLens request, the client's answer to a refresh.
func (c *campaigns) lensRequested() {
	select {
	case c.lensAsked <- struct{}{}:
	default:
	}
}

// lensAnswerWait bounds the wait for the client to ask for lenses after a refresh: a client
// showing no Go file never asks.
const lensAnswerWait = 5 * time.Second

// refreshLoop sends the refreshes, each only after the client asked for lenses following the
// previous one. VS Code debounces lens requests and restarts the debounce on every refresh,
// so refreshes faster than its debounce (which grows on a loaded machine) would keep the lens
// from ever updating while a campaign reports progress.
func (c *campaigns) refreshLoop() {
	s := c.s
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-c.lensWake:
		}
		select { // a request from before this refresh is no answer to it
		case <-c.lensAsked:
		default:
		}
		if err := s.client.CodeLensRefresh(s.ctx); err != nil {
			s.log.Debug("workspace/codeLens/refresh failed", "err", err)
		}
		wait := time.NewTimer(lensAnswerWait)
		select {
		case <-s.ctx.Done():
			wait.Stop()
			return
		case <-c.lensAsked:
		case <-wait.C:
		}
		wait.Stop()
	}
}

func progressMessage(p fuzzer.Progress) string {
	if p.Stage != "" {
		return p.Stage
	}
	msg := fmt.Sprintf("%s, %s", plural(p.Runs, "run"), plural(p.Findings, "finding"))
	if p.Test != "" && !p.Done {
		msg += " (" + p.Test + ")"
	}
	return msg
}

// packageSelected reports whether the package in dir matches one of the patterns,
// which are relative to its workspace folder ("./...", "./sub/...", "./sub").
func packageSelected(folder, dir string, patterns []string) bool {
	rel, err := filepath.Rel(folder, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return false
	}
	rel = filepath.ToSlash(rel)
	for _, p := range patterns {
		p = strings.TrimPrefix(p, "./")
		if p == "..." || p == "" && rel == "." {
			return true
		}
		if base, ok := strings.CutSuffix(p, "/..."); ok {
			if rel == base || strings.HasPrefix(rel, base+"/") {
				return true
			}
			continue
		}
		if p == rel || (p == "." && rel == ".") {
			return true
		}
	}
	return false
}

func hasTestFiles(dir string) bool {
	matches, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	return len(matches) > 0
}

// relDir shows dir relative to the first workspace folder containing it.
func relDir(s *Server, dir string) string {
	for _, f := range s.workspaceFolders() {
		if within(f, dir) {
			rel, _ := filepath.Rel(f, dir)
			return "./" + filepath.ToSlash(rel)
		}
	}
	return dir
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = append(lines[:n], fmt.Sprintf("... (%d more lines)", len(lines)-n))
	}
	return strings.Join(lines, "\n")
}
