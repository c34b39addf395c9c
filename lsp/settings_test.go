package lsp

import (
	"flag"
	"os"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite SETTINGS.md and COMMANDS.md from the tables")

//go:generate go test -run TestGeneratedDocs -update

// TestGeneratedDocs: SETTINGS.md and COMMANDS.md are what the tables say.
func TestGeneratedDocs(t *testing.T) {
	for file, want := range map[string]string{"SETTINGS.md": SettingsMarkdown(), "COMMANDS.md": CommandsMarkdown()} {
		if *update {
			if err := os.WriteFile(file, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s is out of date; run go generate ./lsp", file)
		}
	}
	for _, row := range settingsTable {
		if !strings.Contains(SettingsMarkdown(), "`"+row.Name+"`") {
			t.Errorf("setting %s is not documented", row.Name)
		}
	}
	for _, name := range CommandNames() {
		if !strings.Contains(CommandsMarkdown(), "`"+name+"`") {
			t.Errorf("command %s is not documented", name)
		}
	}
}

func TestDefaultSettings(t *testing.T) {
	s := DefaultSettings()
	if !s.BackgroundFuzzing || s.BudgetPerTest != 20*time.Second || s.RunsPerTest != 100 || s.Strategy != "auto" ||
		s.Parallel != 0 || !s.Race || len(s.Packages) != 1 || s.Packages[0] != "./..." || s.MaxCampaigns != 1 {
		t.Errorf("defaults = %+v", s)
	}
}

func TestSettingsUpdate(t *testing.T) {
	s := DefaultSettings()
	problems := s.Update([]byte(`{"goweave": {"budgetPerTest": "1m", "race": false, "maxCampaigns": 0, "strategy": "nope", "colour": "red", "packages": ["./a/..."]}}`))
	if s.BudgetPerTest != time.Minute || s.Race || s.MaxCampaigns != 1 || s.Strategy != "auto" || s.Packages[0] != "./a/..." {
		t.Errorf("after update: %+v", s)
	}
	want := []string{
		`setting "maxCampaigns": bad value 0: must be at least 1, got 0`,
		`setting "strategy": bad value "nope": unknown strategy "nope"`,
		`unknown setting "colour"`,
	}
	if len(problems) != len(want) {
		t.Fatalf("problems = %q", problems)
	}
	for i := range want {
		if !strings.HasPrefix(problems[i], want[i]) {
			t.Errorf("problem %d = %q, want prefix %q", i, problems[i], want[i])
		}
	}
	// The bare shape (no "goweave" member) works too; a bad document is one problem.
	if p := s.Update([]byte(`{"runsPerTest": 5}`)); len(p) != 0 || s.RunsPerTest != 5 {
		t.Errorf("bare settings: %q, runsPerTest %d", p, s.RunsPerTest)
	}
	if p := s.Update([]byte(`[1]`)); len(p) != 1 {
		t.Errorf("array settings: %q", p)
	}
	if p := s.Update([]byte(`{"budgetPerTest": "-1s"}`)); len(p) != 1 {
		t.Errorf("negative budget: %q", p)
	}
}
