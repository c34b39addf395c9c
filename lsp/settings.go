package lsp

import (
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/goweave/goweave/fuzzer"
)

// Settings are the user-visible options of the server, read from initializationOptions
// and from workspace/didChangeConfiguration (section "goweave").
type Settings struct {
	BackgroundFuzzing bool
	BudgetPerTest     time.Duration
	RunsPerTest       int
	Strategy          string
	Parallel          int
	Race              bool
	Packages          []string
	MaxCampaigns      int
	AnalysisMemory    int // MB; 0: the fuzzer's default
}

// A setting is one row of the settings table: the only place a setting's name, type,
// default and documentation are written down. DefaultSettings, the parser and
// SETTINGS.md all derive from it.
type setting struct {
	Name    string
	Type    string // as shown in the docs
	Default string // JSON
	Doc     string
	apply   func(s *Settings, raw json.RawMessage) error
}

var settingsTable = []setting{
	{
		Name: "backgroundFuzzing", Type: "boolean", Default: `true`,
		Doc: "When a Go file is opened or saved, fuzz the tests of its package in the background, if it has tests, is inside a workspace folder and matches packages. One campaign per package; editing a file of the package cancels its campaign and saving starts a new one. Findings stay until the code they were seen in changes.",
		apply: func(s *Settings, raw json.RawMessage) error {
			return json.Unmarshal(raw, &s.BackgroundFuzzing)
		},
	},
	{
		Name: "budgetPerTest", Type: "duration string", Default: `"20s"`,
		Doc: "Wall-clock budget of each test in a campaign, as a Go duration (\"20s\", \"2m\"). \"0s\" leaves only runsPerTest as the bound.",
		apply: func(s *Settings, raw json.RawMessage) error {
			var v string
			if err := json.Unmarshal(raw, &v); err != nil {
				return err
			}
			d, err := time.ParseDuration(v)
			if err != nil {
				return err
			}
			if d < 0 {
				return fmt.Errorf("negative duration %q", v)
			}
			s.BudgetPerTest = d
			return nil
		},
	},
	{
		Name: "runsPerTest", Type: "integer", Default: `100`,
		Doc: "Maximum number of runs of each test in a campaign; 0 means no limit besides budgetPerTest.",
		apply: func(s *Settings, raw json.RawMessage) error {
			return unmarshalNonNegative(raw, &s.RunsPerTest)
		},
	},
	{
		Name: "strategy", Type: "string", Default: `"auto"`,
		Doc: "How later runs are steered: " + quotedList(fuzzer.Strategies) + ".",
		apply: func(s *Settings, raw json.RawMessage) error {
			var v string
			if err := json.Unmarshal(raw, &v); err != nil {
				return err
			}
			if !slices.Contains(fuzzer.Strategies, v) {
				return fmt.Errorf("unknown strategy %q (want one of %s)", v, quotedList(fuzzer.Strategies))
			}
			s.Strategy = v
			return nil
		},
	},
	{
		Name: "parallel", Type: "integer", Default: `0`,
		Doc: "Number of test processes running at once; 0 means one per CPU core.",
		apply: func(s *Settings, raw json.RawMessage) error {
			return unmarshalNonNegative(raw, &s.Parallel)
		},
	},
	{
		Name: "race", Type: "boolean", Default: `true`,
		Doc: "Build the test binaries with -race, which also reports data races (about 2.3x the CPU per run); false builds without it. Where the platform has no race detector the campaign builds without it and warns.",
		apply: func(s *Settings, raw json.RawMessage) error {
			return json.Unmarshal(raw, &s.Race)
		},
	},
	{
		Name: "packages", Type: "array of strings", Default: `["./..."]`,
		Doc: "Package patterns, relative to the workspace folder that holds the package, whose tests are fuzzed in the background (\"./...\", \"./internal/...\", \"./cmd/x\").",
		apply: func(s *Settings, raw json.RawMessage) error {
			var v []string
			if err := json.Unmarshal(raw, &v); err != nil {
				return err
			}
			for _, p := range v {
				if p == "" {
					return fmt.Errorf("empty package pattern")
				}
			}
			s.Packages = v
			return nil
		},
	},
	{
		Name: "maxCampaigns", Type: "integer", Default: `1`,
		Doc: "Maximum number of campaigns (background or requested) running at once; more wait in a queue, first come first served.",
		apply: func(s *Settings, raw json.RawMessage) error {
			var v int
			if err := json.Unmarshal(raw, &v); err != nil {
				return err
			}
			if v < 1 {
				return fmt.Errorf("must be at least 1, got %d", v)
			}
			s.MaxCampaigns = v
			return nil
		},
	},
	{
		Name: "analysisMemory", Type: "integer", Default: `0`,
		Doc: "Memory budget of the analysis of one run, in MB (goweave fuzz -analysis-memory); a run whose analysis needs more is not analyzed, the campaign goes on and says so in a warning. 0: a quarter of the machine's memory, at most 1 GB.",
		apply: func(s *Settings, raw json.RawMessage) error {
			return unmarshalNonNegative(raw, &s.AnalysisMemory)
		},
	},
}

func unmarshalNonNegative(raw json.RawMessage, dst *int) error {
	var v int
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	if v < 0 {
		return fmt.Errorf("must not be negative, got %d", v)
	}
	*dst = v
	return nil
}

func quotedList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	return strings.Join(q, ", ")
}

// DefaultSettings returns the settings with every value at its documented default.
func DefaultSettings() Settings {
	var s Settings
	for _, row := range settingsTable {
		if err := row.apply(&s, json.RawMessage(row.Default)); err != nil {
			panic(fmt.Sprintf("settings table: default of %s: %v", row.Name, err)) // a bug in the table
		}
	}
	return s
}

// Update applies the user's settings in raw, a JSON object holding either the settings
// themselves or a "goweave" member holding them (both shapes are sent by clients). A
// setting that is unknown or has a bad value is skipped and described in the returned
// problems; the others are applied.
func (s *Settings) Update(raw []byte) (problems []string) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return []string{fmt.Sprintf("settings are not a JSON object: %v", err)}
	}
	if inner, ok := obj["goweave"]; ok {
		obj = nil
		if err := json.Unmarshal(inner, &obj); err != nil {
			return []string{fmt.Sprintf(`settings section "goweave" is not a JSON object: %v`, err)}
		}
	}
	for name, value := range obj {
		i := slices.IndexFunc(settingsTable, func(r setting) bool { return r.Name == name })
		if i < 0 {
			problems = append(problems, fmt.Sprintf("unknown setting %q (known: %s)", name, settingNames()))
			continue
		}
		next := *s
		if err := settingsTable[i].apply(&next, value); err != nil {
			problems = append(problems, fmt.Sprintf("setting %q: bad value %s: %v", name, value, err))
			continue
		}
		*s = next
	}
	slices.Sort(problems)
	return problems
}

func settingNames() string {
	names := make([]string, len(settingsTable))
	for i, r := range settingsTable {
		names[i] = r.Name
	}
	return strings.Join(names, ", ")
}

// fuzzConfig is the campaign configuration for the tests selected by run in dir.
func (s Settings) fuzzConfig(dir, run string) fuzzer.Config {
	parallel := s.Parallel
	if parallel == 0 {
		parallel = runtime.NumCPU()
	}
	return fuzzer.Config{
		Dir:         dir,
		Packages:    []string{"."},
		Run:         run,
		TimePerTest: s.BudgetPerTest,
		RunsPerTest: s.RunsPerTest,
		Strategy:    s.Strategy,
		Parallel:    parallel,
		Race:        s.Race,
		// MB to bytes
		AnalysisMemory: int64(s.AnalysisMemory) << 20,
	}
}

// SettingsMarkdown documents every setting; lsp/SETTINGS.md holds its output.
func SettingsMarkdown() string {
	var b strings.Builder
	b.WriteString("## Settings\n\n")
	b.WriteString("The language server reads these settings from `initializationOptions` and from\n")
	b.WriteString("`workspace/didChangeConfiguration` (section `goweave`).\n\n")
	b.WriteString("| name | type | default | description |\n|---|---|---|---|\n")
	for _, r := range settingsTable {
		fmt.Fprintf(&b, "| `%s` | %s | `%s` | %s |\n", r.Name, r.Type, r.Default, strings.ReplaceAll(r.Doc, "|", `\|`))
	}
	return b.String()
}
