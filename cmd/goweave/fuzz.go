package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer"
	"github.com/goweave/goweave/internal/wants"
)

func init() {
	register(command{name: "fuzz", summary: "fuzz the schedules of tests and report concurrency bugs", run: runFuzz})
}

func runFuzz(args []string) int {
	fs := flag.NewFlagSet("fuzz", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: goweave fuzz [flags] [packages]\n\n"+
			"Runs each selected test many times under the goweave runtime, analyzes every run and\n"+
			"prints the distinct concurrency bugs found. Exit status: 0 no findings, 1 findings, 2 errors,\n"+
			"a test of which no run could be analyzed (a warning says why), or a test that failed in every\n"+
			"run (an error names the failure; one that fails unsteered too is stopped after 8 runs and run\n"+
			"under plain go test until it passes, at most 32 times: a pass resumes it, as a flaky test, until\n"+
			"32 runs under goweave failed; the error says what plain go test did). A predicted finding its confirmation refuted (the test passed without\n"+
			"the bug) is a hint: listed, severity hint, no exit status 1. So is a timing-dependent failure\n"+
			"(a warning): a test failure or panic that happened only when a time.Sleep, timer or deadline\n"+
			"expired while goweave held the goroutine the test waited for (\"timing\" in -json, SARIF).\n"+
			"Budget: -time 5s per test unless -time or -runs is given (with both, whichever ends first);\n"+
			"it holds for the test's runs, their analysis and confirmation, except the test's first\n"+
			"run, stopped only at -timeout, and its analysis, which may go on past -time by -time\n"+
			"(at least 30s; then it is stopped and a warning says so): a test slower than\n"+
			"-time borrows the time past it, and one more run's, from the campaign, which lends at most\n"+
			"tests x -time in all (at least one -timeout), so a campaign takes at most about twice\n"+
			"tests x -time / -p; warnings name the tests that borrowed and any left with no finished run.\n"+
			"Runs: the runs that finished, confirmation runs included; runs the budget stopped\n"+
			"unfinished are counted apart (\"2 more cut by the time budget\").\n"+
			"Slow is not hung: a run still making progress at -timeout (operations recorded, a timer\n"+
			"pending or a goroutine runnable, or 2%% CPU over the last second) goes on up to 3x the\n"+
			"test's slowest passing run (this campaign's and earlier ones'), never less than -timeout,\n"+
			"or 3x -timeout (or -time, if longer) while none has passed; it is stopped as soon as it\n"+
			"stops progressing. A slow run is a warning that names the test and its duration, never\n"+
			"a hang.\n\n")
		fs.PrintDefaults()
	}
	run := fs.String("run", "", "fuzz only tests matching `regexp`")
	perTest := fs.Duration("time", 5*time.Second, "time budget per test")
	runs := fs.Int("runs", 0, "run budget per test (0: no limit)")
	strategy := fs.String("strategy", "auto", "`name` of the strategy: "+strings.Join(fuzzer.Strategies, ", "))
	parallel := fs.Int("p", 0, "test processes at once (default: number of CPUs)")
	race := fs.Bool("race", true, "build with the race detector, which reports data races (about 2.3x the CPU per run); -race=false builds without it; where the platform has none the campaign builds without it and warns")
	vet := fs.String("vet", "", "go vet checks run while building the tests, as go test's -vet: `list` of checks, or off (default: go test's)")
	asJSON := fs.Bool("json", false, `print {"findings":[...],"tests":[...]} instead of text`)
	sarifPath := fs.String("sarif", "", "also write the findings as SARIF 2.1.0 to `file`")
	out := fs.String("o", "", "write traces and results under `dir` (default: the user cache directory)")
	shard := fs.String("shard", "", "fuzz only shard `i/n` of the tests (0 <= i < n)")
	timeout := fs.Duration("timeout", 0, "time limit of each test process (default 10s); a run still making progress then goes on, up to 3x the test's slowest passing run (see above)")
	fresh := fs.Bool("fresh", false, "start over: ignore what earlier campaigns of the same test binaries saved (coverage, schedules run and queued, findings)")
	verbose := fs.Bool("v", false, "print one line per run to stderr: its strategy, what its schedule changed, how it ended, what it found first; print each finding's trace path")
	quiet := fs.Bool("q", false, "print no progress on stderr (without a terminal: a line per test start and end, and a heartbeat every 10s)")
	memory := fs.Int64("analysis-memory", 0, "memory budget of one run's analysis, in MB; a run whose trace does not fit is analyzed on its first events that do (a warning says so), one that passes it during the analysis is not analyzed; the campaign goes on (0: a quarter of the machine's memory, at most 1 GB)")
	untilWants := fs.Bool("until-wants", false, "stop fuzzing a test once every \"// want\" annotation of its package is met (for annotated test programs)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	patterns, runPattern, ok := testArgs("fuzz", fs.Args(), *run)
	if !ok {
		return 2
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	cfg := fuzzer.Config{
		Packages: patterns, Run: runPattern, TimePerTest: *perTest, RunsPerTest: *runs,
		Strategy: *strategy, Parallel: *parallel, Race: *race, Vet: *vet, RunTimeout: *timeout, OutDir: *out, Fresh: *fresh,
		AnalysisMemory: *memory << 20,
	}
	if set["runs"] && !set["time"] {
		cfg.TimePerTest = 0
	}
	if *shard != "" {
		s, err := parseShard(*shard)
		if err != nil {
			fmt.Fprintf(os.Stderr, "goweave fuzz: %v\n", err)
			return 2
		}
		cfg.Shard = s
	}
	if *untilWants {
		cfg.Enough = wantsMet()
	}

	if *out != "" {
		// The replay commands printed with the findings work from any directory.
		if abs, err := filepath.Abs(*out); err == nil {
			*out = abs
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *verbose {
		cfg.Log = func(l fuzzer.RunLog) { fmt.Fprintln(os.Stderr, l) }
	}
	var progress func(fuzzer.Progress)
	switch {
	case *quiet:
	case isTerminal(os.Stderr) && !*verbose:
		progress = terminalProgress(os.Stderr)
	default:
		// A log (CI): a line per test start and end, and a heartbeat unless -v prints a
		// line per run anyway.
		var tick <-chan time.Time
		if !*verbose {
			ticker := time.NewTicker(heartbeatEvery)
			defer ticker.Stop()
			tick = ticker.C
		}
		lp := newLineProgress(os.Stderr, tick)
		defer lp.stop()
		progress = lp.update
	}
	rep, err := fuzzer.Fuzz(ctx, cfg, progress)
	code := 0
	if err != nil {
		code = 2
		printFuzzError(os.Stderr, err)
	}
	if rep == nil {
		return 2
	}
	normalizeSeverities(rep.Findings)
	if len(rep.Tests) == 0 && err == nil {
		fmt.Fprintln(os.Stderr, "goweave fuzz: no tests to fuzz (check the package patterns and -run)")
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(os.Stderr, "goweave fuzz: warning: %s\n", w)
	}
	for _, e := range rep.Errors {
		fmt.Fprintf(os.Stderr, "goweave fuzz: error: %s\n", e)
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintf(os.Stderr, "goweave fuzz: %v\n", err)
			return 2
		}
	} else {
		cwd, _ := os.Getwd()
		printFindings(os.Stdout, rep.Findings, textOptions{cwd: cwd, outDir: *out, verbose: *verbose})
		printUnhealthyTests(os.Stderr, rep.Tests)
	}
	if *sarifPath != "" {
		if err := writeSARIF(*sarifPath, rep.Findings); err != nil {
			fmt.Fprintf(os.Stderr, "goweave fuzz: writing SARIF: %v\n", err)
			return 2
		}
	}
	if code == 0 && gating(rep.Findings) {
		code = 1
	}
	if unchecked(rep.Tests) || len(rep.Errors) > 0 {
		code = 2 // the warnings or errors say which test and why; "no findings" would claim too much
	}
	return code
}

// unchecked reports whether a test ran, or was cut by its time budget, without any run
// analyzed: its bugs are unknown.
func unchecked(tests []fuzzer.TestResult) bool {
	for _, t := range tests {
		if (t.Runs > 0 || t.CutShort > 0) && t.Analyzed == 0 {
			return true
		}
	}
	return false
}

// normalizeSeverities sets each finding's severity from its kind and its confidence now
// (a replay may have confirmed a predicted finding), so JSON, SARIF and the editor agree.
func normalizeSeverities(findings []fuzzer.Finding) {
	for i := range findings {
		findings[i].Severity = fuzzer.SeverityOf(&findings[i])
	}
}

// gating reports whether a finding sets exit status 1: all but refuted predictions.
func gating(findings []fuzzer.Finding) bool {
	for i := range findings {
		if fuzzer.Gating(&findings[i]) {
			return true
		}
	}
	return false
}

// heartbeatEvery is the interval of the progress heartbeat without a terminal.
const heartbeatEvery = 10 * time.Second

func parseShard(s string) (fuzzer.Shard, error) {
	i, n, ok := strings.Cut(s, "/")
	index, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || count < 1 || index < 0 || index >= count {
		return fuzzer.Shard{}, fmt.Errorf("-shard %q: want i/n with 0 <= i < n, e.g. 0/4", s)
	}
	return fuzzer.Shard{Index: index, Count: count}, nil
}

func printFuzzError(w io.Writer, err error) {
	for _, e := range flatten(err) {
		var be *fuzzer.BuildError
		switch {
		case errors.As(e, &be):
			fmt.Fprintf(w, "goweave: cannot build the tests of %s:\n%s", be.Package, be.Output)
		case errors.Is(e, context.Canceled):
			fmt.Fprintln(w, "goweave fuzz: interrupted; results so far follow")
		default:
			fmt.Fprintf(w, "goweave fuzz: %v\n", e)
		}
	}
}

// wantsMet ends a test's campaign once each `// want` of its package directory has a
// finding of that kind on that line. Packages without wants use their whole budget.
func wantsMet() func(fuzzer.TestID, []fuzzer.Finding) bool {
	var mu sync.Mutex
	cache := map[string]*wants.Annotations{}
	return func(t fuzzer.TestID, found []fuzzer.Finding) bool {
		mu.Lock()
		a, ok := cache[t.Dir]
		if !ok {
			a, _ = wants.ParseDir(t.Dir) // unreadable: treated as no wants
			cache[t.Dir] = a
		}
		mu.Unlock()
		if a == nil || len(a.Wants) == 0 {
			return false
		}
		return len(a.Match(wantReports(found)).Missing) == 0
	}
}

// wantReports are what findings report for `// want` annotations: each bug's kind at its
// primary position, and so the other findings grouped into it (a cycle's deadlock), except
// the panics, failures and hangs a grouped finding explains (annotations name causes).
func wantReports(findings []fuzzer.Finding) []wants.Report {
	var reports []wants.Report
	for _, f := range findings {
		if len(f.Positions) > 0 {
			reports = append(reports, wants.Report{Kind: f.Kind, File: f.Positions[0].File, Line: f.Positions[0].Line})
		}
		for _, r := range f.Related {
			if !analysis.SymptomKind(r.Kind) {
				reports = append(reports, wants.Report{Kind: r.Kind, File: r.Position.File, Line: r.Position.Line})
			}
		}
	}
	return reports
}

// textOptions say how printFindings writes findings.
type textOptions struct {
	cwd     string // positions below it are printed relative to it
	outDir  string // the -o given to fuzz, repeated in the replay command
	verbose bool   // also the path of the trace of the run that found each finding
}

// printFindings writes findings like go vet: the primary position, the kind and message,
// then the other positions indented with their roles, then the finding's ID, the evidence
// and the command that replays it (the trace's long path only when verbose).
func printFindings(w io.Writer, findings []fuzzer.Finding, o textOptions) {
	for _, f := range findings {
		primary := analysis.Position{}
		if len(f.Positions) > 0 {
			primary = f.Positions[0]
		}
		fmt.Fprintf(w, "%s: %s: %s\n", positionString(primary, o.cwd), f.Kind, f.Message)
		for _, p := range f.Positions[min(1, len(f.Positions)):] {
			fmt.Fprintf(w, "\t%s: %s\n", positionString(p, o.cwd), p.Role)
		}
		if f.ID == "" {
			continue
		}
		fmt.Fprintf(w, "\t%s: %s; replay: %s\n", f.ID, evidence(f), replayCommand(f.ID, o.outDir))
		if f.Confidence == analysis.Confirmed && f.Confirmation != "" {
			fmt.Fprintf(w, "\tconfirmation: %s\n", f.Confirmation) // what the run showed
		}
		if f.Refuted != "" && !fuzzer.Gating(&f) {
			fmt.Fprintf(w, "\thint: predicted; confirmation refuted it: %s\n", f.Refuted)
		}
		if f.Timing != nil {
			fmt.Fprintf(w, "\ttiming-dependent (warning, no exit status 1): every failing run shows the clock's part (%s; the message says how); wait for the goroutine, not the clock\n", f.Timing.Wait)
		}
		if len(f.Related) > 0 {
			fmt.Fprintf(w, "\talso reported as %s\n", relatedSummary(f.Related))
		}
		if o.verbose && f.Trace != "" {
			fmt.Fprintf(w, "\ttrace: %s\n", f.Trace)
		}
	}
}

// evidence says how sure the finding is and which runs showed it.
func evidence(f fuzzer.Finding) string {
	s := string(f.Confidence)
	switch {
	case f.HappenedIn > 0 && f.SeenIn > f.HappenedIn:
		s += fmt.Sprintf(", happened in %d of %d runs (predicted in %d)", f.HappenedIn, f.OfRuns, f.SeenIn)
	case f.HappenedIn > 0:
		s += fmt.Sprintf(", happened in %d of %d runs", f.HappenedIn, f.OfRuns)
	case f.SeenIn > 0:
		s += fmt.Sprintf(", predicted in %d of %d runs", f.SeenIn, f.OfRuns)
	}
	s += fmt.Sprintf(", first in %s run %d", f.Strategy, f.Run)
	if f.Earlier {
		s += " of an earlier campaign"
	}
	if f.Test != "" {
		s += fmt.Sprintf(" of %s.%s", f.Package, f.Test)
	}
	return s
}

// relatedSummary counts the other findings of a bug by kind and confidence:
// "2 negative-waitgroup (actual), 3 deadlock (actual)".
func relatedSummary(related []fuzzer.Related) string {
	type kc struct{ kind, conf string }
	counts := map[kc]int{}
	var order []kc
	for _, r := range related {
		k := kc{r.Kind, string(r.Confidence)}
		if counts[k] == 0 {
			order = append(order, k)
		}
		counts[k]++
	}
	parts := make([]string, len(order))
	for i, k := range order {
		parts[i] = fmt.Sprintf("%d %s (%s)", counts[k], k.kind, k.conf)
	}
	return strings.Join(parts, ", ")
}

// replayCommand is the command line that replays the finding id.
func replayCommand(id, outDir string) string {
	if outDir == "" {
		return "goweave replay " + id
	}
	return "goweave replay -o " + shellQuote(outDir) + " " + id
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:@+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// printUnhealthyTests notes the tests that did not pass in every run: a panic, deadlock or
// timeout with no finding still deserves a look (its runs' output is not kept).
func printUnhealthyTests(w io.Writer, tests []fuzzer.TestResult) {
	order := []fuzzer.Status{fuzzer.StatusFail, fuzzer.StatusPanic, fuzzer.StatusDeadlock, fuzzer.StatusTimeout, fuzzer.StatusCrash}
	for _, t := range tests {
		var parts []string
		for _, s := range order {
			if n := t.Statuses[string(s)]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, s))
			}
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "goweave: %s.%s: %s in %d runs\n", t.Package, t.Test, strings.Join(parts, ", "), t.Runs)
		}
	}
}

func positionString(p analysis.Position, cwd string) string {
	if p.File == "" {
		return "-"
	}
	s := relativeTo(p.File, cwd) + ":" + strconv.Itoa(p.Line)
	if p.Column > 0 {
		s += ":" + strconv.Itoa(p.Column)
	}
	return s
}

// relativeTo shortens path to be relative to dir when it lies below it.
func relativeTo(path, dir string) string {
	if dir == "" {
		return path
	}
	if rel, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// terminalProgress redraws one status line.
func terminalProgress(w io.Writer) func(fuzzer.Progress) {
	return func(p fuzzer.Progress) {
		if p.Stage != "" {
			fmt.Fprintf(w, "\r\033[K%s", p.Stage)
			return
		}
		if p.Done {
			fmt.Fprintf(w, "\r\033[K%d/%d tests, %s, %d findings in %s\n", p.TestsDone, p.TestsTotal, runCount(p.Runs, p.CutShort), p.Findings, p.Elapsed.Round(100*time.Millisecond))
			return
		}
		fmt.Fprintf(w, "\r\033[K[%d/%d] %s, %d findings, %s  %s.%s", p.TestsDone, p.TestsTotal, runCount(p.Runs, p.CutShort), p.Findings, p.Elapsed.Round(time.Second), p.Package, p.Test)
	}
}

// SARIF 2.1.0, the subset GitHub code scanning reads.
type sarifLog struct {
	Version string     `json:"version"`
	Schema  string     `json:"$schema"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool               sarifTool                `json:"tool"`
	OriginalURIBaseIDs map[string]sarifArtifact `json:"originalUriBaseIds,omitempty"`
	Results            []sarifResult            `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Version        string      `json:"version,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string        `json:"id"`
	Name                 string        `json:"name"`
	ShortDescription     sarifMessage  `json:"shortDescription"`
	FullDescription      *sarifMessage `json:"fullDescription,omitempty"`
	Help                 *sarifMessage `json:"help,omitempty"`
	DefaultConfiguration sarifConfig   `json:"defaultConfiguration"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifMessage      `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	RelatedLocations    []sarifLocation   `json:"relatedLocations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints,omitempty"`
	Properties          *sarifProperties  `json:"properties,omitempty"`
}

// sarifProperties is a result's property bag: whether the finding sets exit status 1
// (gating: a CI can gate on these alone), and for a timing-dependent failure its timing
// (the JSON's "timing") with the tag "timing-dependent".
type sarifProperties struct {
	Gating bool             `json:"gating"`
	Tags   []string         `json:"tags,omitempty"`
	Timing *analysis.Timing `json:"timing,omitempty"`
}

type sarifLocation struct {
	ID               *int                  `json:"id,omitempty"`
	PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
	Message          *sarifMessage         `json:"message,omitempty"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

// writeSARIF writes findings as SARIF to path. Files below the current directory (the
// repository root when run from CI) get relative URIs, as code scanning wants.
func writeSARIF(path string, findings []fuzzer.Finding) error {
	cwd, _ := os.Getwd()
	data, err := json.MarshalIndent(sarifFor(findings, cwd), "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

func sarifFor(findings []fuzzer.Finding, root string) sarifLog {
	version := ""
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "(devel)" {
		version = bi.Main.Version
	}
	driver := sarifDriver{Name: "goweave", InformationURI: "https://github.com/goweave/goweave", Version: version, Rules: []sarifRule{}}
	ruleIndex := map[string]int{}
	results := []sarifResult{}
	for _, f := range findings {
		level := sarifLevel(f.Severity)
		i, ok := ruleIndex[f.Kind]
		if !ok {
			i = len(driver.Rules)
			ruleIndex[f.Kind] = i
			driver.Rules = append(driver.Rules, sarifRuleFor(f.Kind, level))
		}
		r := sarifResult{RuleID: f.Kind, RuleIndex: i, Level: level, Message: sarifMessage{Text: f.Message}, Locations: []sarifLocation{},
			Properties: &sarifProperties{Gating: fuzzer.Gating(&f), Timing: f.Timing}}
		if f.Timing != nil {
			r.Properties.Tags = []string{"timing-dependent"}
		}
		for j, p := range f.Positions {
			loc := sarifLocation{PhysicalLocation: sarifPhysical(p, root)}
			if j == 0 {
				r.Locations = append(r.Locations, loc)
				continue
			}
			id := j
			loc.ID = &id
			loc.Message = &sarifMessage{Text: p.Role}
			r.RelatedLocations = append(r.RelatedLocations, loc)
		}
		if f.Fingerprint != "" {
			r.PartialFingerprints = map[string]string{"goweave/v1": f.Fingerprint}
		}
		results = append(results, r)
	}
	return sarifLog{
		Version: "2.1.0",
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Runs: []sarifRun{{
			Tool: sarifTool{Driver: driver},
			// Where %SRCROOT% is, for viewers other than code scanning (which uses the checkout).
			OriginalURIBaseIDs: map[string]sarifArtifact{"%SRCROOT%": {URI: "file://" + filepath.ToSlash(root) + "/"}},
			Results:            results,
		}},
	}
}

// sarifRuleFor describes a kind from its detector's documentation: the first sentence is
// the short description, the whole text the full description and help.
func sarifRuleFor(kind, level string) sarifRule {
	r := sarifRule{ID: kind, Name: kind, ShortDescription: sarifMessage{Text: "goweave: " + kind}, DefaultConfiguration: sarifConfig{Level: level}}
	if d := analysis.Lookup(kind); d != nil && d.Doc != "" {
		first, _, _ := strings.Cut(d.Doc, "\n\n")
		if i := strings.Index(first, ". "); i >= 0 {
			first = first[:i+1]
		}
		r.ShortDescription.Text = strings.Join(strings.Fields(first), " ")
		r.FullDescription = &sarifMessage{Text: d.Doc}
		r.Help = &sarifMessage{Text: d.Doc}
	}
	return r
}

func sarifLevel(s analysis.Severity) string {
	switch s {
	case analysis.SeverityWarning:
		return "warning"
	case fuzzer.SeverityHint:
		return "note"
	}
	return "error"
}

func sarifPhysical(p analysis.Position, root string) sarifPhysicalLocation {
	loc := sarifPhysicalLocation{Region: sarifRegion{StartLine: max(p.Line, 1), StartColumn: p.Column}}
	rel := relativeTo(p.File, root)
	if rel != p.File || !filepath.IsAbs(p.File) {
		loc.ArtifactLocation = sarifArtifact{URI: filepath.ToSlash(rel), URIBaseID: "%SRCROOT%"}
	} else {
		loc.ArtifactLocation = sarifArtifact{URI: "file://" + filepath.ToSlash(p.File)}
	}
	return loc
}
