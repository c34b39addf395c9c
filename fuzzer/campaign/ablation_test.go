package campaign

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goweave/goweave/fuzzer/build"
	"github.com/goweave/goweave/fuzzer/mutate"
	"github.com/goweave/goweave/fuzzer/run"
	"github.com/goweave/goweave/internal/wants"
)

// The strategy evaluation over the acceptance corpus (the fuzzer issue's ablation). It
// takes tens of minutes, so it runs only when asked:
//
//	GOWEAVE_ABLATION=1 go test -run 'TestAblation' -v -timeout 60m ./fuzzer/campaign
//
// Knobs (environment): GOWEAVE_ABLATION_REPS (campaigns per cell, default 5),
// GOWEAVE_ABLATION_RUNS / GOWEAVE_ABLATION_TIME (cap per campaign, default 300 runs / 15s),
// GOWEAVE_ABLATION_COVERAGE_RUNS (runs per strategy for the coverage table, default 200) and
// GOWEAVE_ABLATION_COVERAGE_KERNELS (its kernels),
// GOWEAVE_ABLATION_KERNELS (comma-separated subset), GOWEAVE_ABLATION_STRATEGIES,
// GOWEAVE_ABLATION_OUT (a file the Markdown tables are appended to).

// ablationStrategies are the columns of the tables: plain re-runs, each steering strategy
// alone, and their combination.
var ablationStrategies = []string{"record", "gfuzz", "gopie", "flow", "prefix", "auto"}

// corpusDir is the shared acceptance corpus beside the checkout; tests skip without it.
func corpusDir(t *testing.T) string {
	t.Helper()
	dir, _ := filepath.Abs(filepath.Join("..", "..", "..", "shared", "corpus"))
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Skipf("no corpus at %s", dir)
	}
	return dir
}

func ablationEnabled(t *testing.T) {
	t.Helper()
	if os.Getenv("GOWEAVE_ABLATION") == "" {
		t.Skip("strategy evaluation over the corpus: set GOWEAVE_ABLATION=1 (takes tens of minutes)")
	}
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

func envDuration(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil && d > 0 {
		return d
	}
	return def
}

func envList(name string, def []string) []string {
	if v := os.Getenv(name); v != "" {
		return strings.Split(v, ",")
	}
	return def
}

// corpusKernels lists the kernel directories of the corpus; withWants keeps those with a
// want line (true) or those without (false).
func corpusKernels(t *testing.T, corpus string, withWants bool) []string {
	t.Helper()
	entries, err := os.ReadDir(corpus)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		a, err := wants.ParseDir(filepath.Join(corpus, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if (len(a.Wants) > 0) == withWants && len(a.Files) > 0 {
			out = append(out, e.Name())
		}
	}
	return out
}

// prebuiltCampaign is newCampaign over binaries built once for the whole evaluation, so
// that the repetitions measure fuzzing, not linking.
func prebuiltCampaign(t *testing.T, cfg Config, bins []*build.TestBinary) *campaign {
	t.Helper()
	if err := applyDefaults(&cfg); err != nil {
		t.Fatal(err)
	}
	strategy, err := newStrategy(cfg.Strategy)
	if err != nil {
		t.Fatal(err)
	}
	c := &campaign{cfg: cfg, dir: t.TempDir(), analyze: true, findings: map[string]*Finding{}, recipes: map[string]*recipeParts{}, confirming: map[string]string{}, keepFiles: map[string]bool{}, byPrimary: map[string]*Finding{}, traceRefs: map[string]int{}, start: time.Now()}
	for _, b := range bins {
		for _, name := range b.Tests {
			st, err := strategy(b.Package, name)
			if err != nil {
				t.Fatal(err)
			}
			c.tests = append(c.tests, &testState{bin: b, name: name, strategy: st, worst: run.StatusPass, signatures: map[string]bool{}, statuses: map[string]int{}})
		}
	}
	return c
}

func buildKernels(t *testing.T, corpus string, kernels []string, race bool) map[string]*build.TestBinary {
	t.Helper()
	overlay, err := build.Overlay(context.Background(), corpus)
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	for _, k := range kernels {
		pkgs = append(pkgs, "./"+k)
	}
	start := time.Now()
	bins, err := build.Build(context.Background(), build.Options{Dir: corpus, Packages: pkgs, Race: race, Overlay: overlay, BinDir: t.TempDir(), Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("built %d kernels (race=%v) in %v", len(bins), race, time.Since(start).Round(time.Millisecond))
	byKernel := map[string]*build.TestBinary{}
	for _, b := range bins {
		byKernel[filepath.Base(b.Dir)] = b
	}
	return byKernel
}

// detection is one campaign's outcome for one kernel: the run (1-based) after which every
// want had a matching finding, and the seconds from the test's first run to that moment.
type detection struct {
	found   bool
	runs    int // run index of the latest first-detection among the wants; runs made if !found
	seconds float64
}

// detectAll runs one campaign of strategy over bins, each test until its wants are met or
// the cap is reached, and returns each kernel's detection.
func detectAll(t *testing.T, strategy string, bins []*build.TestBinary, maxRuns int, maxTime time.Duration) map[string]detection {
	t.Helper()
	annotations := map[string]*wants.Annotations{}
	for _, b := range bins {
		a, err := wants.ParseDir(b.Dir)
		if err != nil {
			t.Fatal(err)
		}
		annotations[b.Dir] = a
	}
	out := map[string]detection{}
	var c *campaign
	cfg := Config{Strategy: strategy, RunsPerTest: maxRuns, TimePerTest: maxTime, Parallel: 2, Race: true, OutDir: t.TempDir()}
	cfg.Enough = func(id TestID, found []Finding) bool {
		a := annotations[id.Dir]
		if _, done := out[filepath.Base(id.Dir)]; done {
			return true
		}
		firstRun := map[string]int{} // want key -> lowest run that met it
		var reports []wants.Report
		for _, f := range found {
			if len(f.Positions) == 0 {
				continue
			}
			p := f.Positions[0]
			reports = append(reports, wants.Report{Kind: f.Kind, File: p.File, Line: p.Line})
			k := fmt.Sprintf("%s:%d:%s", p.File, p.Line, f.Kind)
			if r, ok := firstRun[k]; !ok || f.Run < r {
				firstRun[k] = f.Run
			}
		}
		if len(a.Match(reports).Missing) > 0 {
			return false
		}
		d := detection{found: true}
		for _, w := range a.Wants {
			d.runs = max(d.runs, firstRun[fmt.Sprintf("%s:%d:%s", w.File, w.Line, w.Kind)])
		}
		for _, ts := range c.tests {
			if ts.bin.Dir == id.Dir && ts.name == id.Test {
				d.seconds = time.Since(ts.first).Seconds()
			}
		}
		out[filepath.Base(id.Dir)] = d
		return true
	}
	c = prebuiltCampaign(t, cfg, bins)
	c.loop(context.Background())
	for _, tr := range c.result().Tests {
		for _, b := range bins {
			if b.Package == tr.Package {
				if _, ok := out[filepath.Base(b.Dir)]; !ok {
					out[filepath.Base(b.Dir)] = detection{runs: tr.Runs, seconds: tr.Seconds}
				}
			}
		}
	}
	return out
}

// median of the detections of one cell: campaigns that missed count as +inf.
func medianDetection(ds []detection) (detection, int) {
	sorted := slices.Clone(ds)
	slices.SortFunc(sorted, func(a, b detection) int {
		switch {
		case a.found != b.found:
			if a.found {
				return -1
			}
			return 1
		case a.runs != b.runs:
			return a.runs - b.runs
		}
		return int((a.seconds - b.seconds) * 1e6)
	})
	found := 0
	for _, d := range ds {
		if d.found {
			found++
		}
	}
	// Runs and seconds medians are taken separately among all campaigns (misses as +inf).
	m := sorted[len(sorted)/2]
	if m.found {
		secs := []float64{}
		for _, d := range ds {
			if d.found {
				secs = append(secs, d.seconds)
			}
		}
		for len(secs) < len(ds) {
			secs = append(secs, 1e18)
		}
		slices.Sort(secs)
		m.seconds = secs[len(secs)/2]
	}
	return m, found
}

// TestAblationDetection measures, per kernel with wants and per strategy, the runs and
// seconds to the first detection of every want (median of GOWEAVE_ABLATION_REPS
// campaigns, capped). A cell stops early once its median is settled: a majority of
// misses, or (after the first repetition) a kernel every strategy found in run 1.
func TestAblationDetection(t *testing.T) {
	ablationEnabled(t)
	corpus := corpusDir(t)
	kernels := envList("GOWEAVE_ABLATION_KERNELS", corpusKernels(t, corpus, true))
	strategies := envList("GOWEAVE_ABLATION_STRATEGIES", ablationStrategies)
	reps := envInt("GOWEAVE_ABLATION_REPS", 5)
	maxRuns := envInt("GOWEAVE_ABLATION_RUNS", 300)
	maxTime := envDuration("GOWEAVE_ABLATION_TIME", 15*time.Second)
	bins := buildKernels(t, corpus, kernels, true)
	start := time.Now()

	results := map[string]map[string][]detection{} // kernel -> strategy -> campaigns
	for _, k := range kernels {
		results[k] = map[string][]detection{}
	}
	settled := func(k, s string) bool {
		ds := results[k][s]
		misses := 0
		for _, d := range ds {
			if !d.found {
				misses++
			}
		}
		if misses > reps/2 || len(ds) >= reps {
			return true
		}
		if len(ds) == 0 {
			return false
		}
		// Found in run 1 by every strategy: the analysis of the free first run finds it,
		// which no strategy changes; one campaign each is enough.
		for _, s2 := range strategies {
			r := results[k][s2]
			if len(r) == 0 || !r[0].found || r[0].runs != 1 {
				return false
			}
		}
		return true
	}
	for rep := 0; rep < reps; rep++ {
		for _, s := range strategies {
			var todo []*build.TestBinary
			for _, k := range kernels {
				if b := bins[k]; b != nil && !settled(k, s) {
					todo = append(todo, b)
				}
			}
			if len(todo) == 0 {
				continue
			}
			begin := time.Now()
			got := detectAll(t, s, todo, maxRuns, maxTime)
			for _, b := range todo {
				k := filepath.Base(b.Dir)
				results[k][s] = append(results[k][s], got[k])
			}
			t.Logf("rep %d %-6s %2d kernels in %v (total %v)", rep+1, s, len(todo), time.Since(begin).Round(time.Second), time.Since(start).Round(time.Second))
		}
	}

	var b strings.Builder
	fmt.Fprintf(&b, "\n### Runs / seconds to first detection of every want (median of up to %d campaigns; cap %d runs or %v per campaign; -race)\n\n", reps, maxRuns, maxTime)
	fmt.Fprintf(&b, "| kernel | %s |\n|---|%s\n", strings.Join(strategies, " | "), strings.Repeat("---|", len(strategies)))
	for _, k := range kernels {
		fmt.Fprintf(&b, "| %s |", k)
		for _, s := range strategies {
			ds := results[k][s]
			if len(ds) == 0 {
				b.WriteString(" - |")
				continue
			}
			m, found := medianDetection(ds)
			switch {
			case !m.found:
				fmt.Fprintf(&b, " not found (%d/%d) |", found, len(ds))
			case found < len(ds):
				fmt.Fprintf(&b, " %d / %.1fs (%d/%d) |", m.runs, m.seconds, found, len(ds))
			case len(ds) < reps:
				fmt.Fprintf(&b, " %d / %.1fs (n=%d) |", m.runs, m.seconds, len(ds))
			default:
				fmt.Fprintf(&b, " %d / %.1fs |", m.runs, m.seconds)
			}
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\nRaw campaigns (runs/seconds, x = not found within the cap):\n\n")
	for _, k := range kernels {
		var cells []string
		for _, s := range strategies {
			var xs []string
			for _, d := range results[k][s] {
				if d.found {
					xs = append(xs, fmt.Sprintf("%d/%.1f", d.runs, d.seconds))
				} else {
					xs = append(xs, fmt.Sprintf("x(%d/%.0f)", d.runs, d.seconds))
				}
			}
			cells = append(cells, s+" "+strings.Join(xs, " "))
		}
		fmt.Fprintf(&b, "- %s: %s\n", k, strings.Join(cells, "; "))
	}
	fmt.Fprintf(&b, "\nEvaluation wall time: %v\n", time.Since(start).Round(time.Second))
	emitAblation(t, b.String())

	// The acceptance rule: auto is at least as good as the best single strategy. Checked
	// loosely (noise): auto must find every kernel some strategy finds in a majority of
	// campaigns.
	if slices.Contains(strategies, "auto") {
		for _, k := range kernels {
			autoM, _ := medianDetection(results[k]["auto"])
			for _, s := range strategies {
				if s == "auto" || len(results[k][s]) == 0 {
					continue
				}
				if m, _ := medianDetection(results[k][s]); m.found && !autoM.found {
					t.Errorf("%s: %s finds it (median %d runs), auto does not", k, s, m.runs)
				}
			}
		}
	}
}

// TestAblationCoverage counts the distinct schedule signatures N runs of each strategy
// reach on a mix of kernels (no early stop): the campaign's own signature (completion
// order of operations) and mutate.Signature (the execution graph). The record column is
// the signature-stability figure: what the scheduler's own nondeterminism alone produces.
func TestAblationCoverage(t *testing.T) {
	ablationEnabled(t)
	corpus := corpusDir(t)
	kernels := envList("GOWEAVE_ABLATION_COVERAGE_KERNELS", []string{
		"correct_pipeline", "correct_select_loop", "correct_worker_pool", "correct_shared_pool",
		"leak_select", "leak_mutex", "select_gfuzz", "chan_order_flow",
	})
	strategies := envList("GOWEAVE_ABLATION_STRATEGIES", ablationStrategies)
	runs := envInt("GOWEAVE_ABLATION_COVERAGE_RUNS", 200)
	bins := buildKernels(t, corpus, kernels, false)
	start := time.Now()
	type cell struct{ order, graph, steered int }
	table := map[string]map[string]cell{}
	for _, k := range kernels {
		table[k] = map[string]cell{}
	}
	for _, s := range strategies {
		var todo []*build.TestBinary
		for _, k := range kernels {
			if b := bins[k]; b != nil {
				todo = append(todo, b)
			}
		}
		graphs := map[string]*mutate.Coverage{}
		for _, b := range todo {
			graphs[b.Package] = mutate.NewCoverage()
		}
		c := prebuiltCampaign(t, Config{Strategy: s, RunsPerTest: runs, Parallel: 2, OutDir: t.TempDir()}, todo)
		c.onRun = func(ar *AnalyzedRun) {
			if ar.Recorded == nil || ar.Analysis == nil {
				return
			}
			r := &mutate.Run{Trace: ar.Recorded, HB: ar.Analysis.Clocks()}
			graphs[ar.Package].Add(mutate.Signature(r))
		}
		begin := time.Now()
		c.loop(context.Background())
		for _, tr := range c.result().Tests {
			for _, b := range todo {
				if b.Package == tr.Package {
					table[filepath.Base(b.Dir)][s] = cell{order: tr.Signatures, graph: graphs[b.Package].Len(), steered: tr.Steered}
				}
			}
		}
		t.Logf("%-6s %d kernels x %d runs in %v", s, len(todo), runs, time.Since(begin).Round(time.Second))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n### Distinct schedule signatures after %d runs (no -race; cells: execution-graph signatures (mutate.Signature) / completion-order signatures (TestResult.Signatures); steered runs in brackets)\n\n", runs)
	fmt.Fprintf(&b, "| kernel | %s |\n|---|%s\n", strings.Join(strategies, " | "), strings.Repeat("---|", len(strategies)))
	for _, k := range kernels {
		fmt.Fprintf(&b, "| %s |", k)
		for _, s := range strategies {
			x := table[k][s]
			fmt.Fprintf(&b, " %d / %d [%d] |", x.graph, x.order, x.steered)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\nCoverage wall time: %v\n", time.Since(start).Round(time.Second))
	emitAblation(t, b.String())
}

// emitAblation logs a result table and appends it to GOWEAVE_ABLATION_OUT when set.
func emitAblation(t *testing.T, text string) {
	t.Helper()
	t.Log(text)
	path := os.Getenv("GOWEAVE_ABLATION_OUT")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}
