package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeCarriesGeneratedDocs keeps the README's settings and commands sections equal to
// the tables the language server generates them from (lsp/SETTINGS.md, lsp/COMMANDS.md).
func TestReadmeCarriesGeneratedDocs(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"SETTINGS.md", "COMMANDS.md"} {
		doc, err := os.ReadFile(filepath.Join("..", "..", "lsp", name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(readme), strings.TrimSpace(string(doc))) {
			t.Errorf("README.md does not contain lsp/%s verbatim; paste the regenerated file into it", name)
		}
	}
}

// TestReadmeListsCommands checks that every registered subcommand is in the README's usage.
func TestReadmeListsCommands(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for name := range commands {
		if !strings.Contains(string(readme), "goweave "+name) {
			t.Errorf("README.md does not mention `goweave %s`", name)
		}
	}
}

// TestReadmeFlagsExist checks that every flag the README names for a command — in the fuzz
// flag table, in the usage lines and in the "`goweave X` takes ..." paragraphs — is one the
// command's -h lists.
func TestReadmeFlagsExist(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string][]string{} // command -> flags the README names for it
	flagName := regexp.MustCompile("`-([a-zA-Z][-a-zA-Z]*)|\\[-([a-zA-Z][-a-zA-Z]*)")
	add := func(cmd, text string) {
		for _, m := range flagName.FindAllStringSubmatch(text, -1) {
			documented[cmd] = append(documented[cmd], m[1]+m[2])
		}
	}
	usageLine := regexp.MustCompile(`^    goweave ([a-z]+) (.*)$`)
	takes := regexp.MustCompile("^`goweave ([a-z]+)` takes (.*)$")
	var paragraph string // the command of the "takes" paragraph being read
	for _, line := range strings.Split(string(readme), "\n") {
		switch m, p := usageLine.FindStringSubmatch(line), takes.FindStringSubmatch(line); {
		case strings.HasPrefix(line, "| `-"):
			add("fuzz", strings.SplitN(line, "|", 3)[1])
		case m != nil:
			// The usage line's own text, not its description after the wide gap.
			add(m[1], strings.SplitN(m[2], "   ", 2)[0])
		case p != nil:
			paragraph = p[1]
			add(paragraph, p[2])
		case line == "":
			paragraph = ""
		case paragraph != "":
			add(paragraph, line)
		}
	}
	if len(documented["fuzz"]) < 10 || len(documented["serve"]) < 5 {
		t.Fatalf("found too few documented flags (%v): has the README's layout changed?", documented)
	}
	for name, flags := range documented {
		c, ok := commands[name]
		if !ok {
			t.Errorf("README.md names flags of `goweave %s`, which is no command", name)
			continue
		}
		help := commandHelp(t, c)
		for _, f := range flags {
			if !strings.Contains(help, "  -"+f+" ") && !strings.Contains(help, "  -"+f+"\n") && !strings.Contains(help, "  -"+f+"\t") {
				t.Errorf("README.md documents `goweave %s -%s`, which its -h does not list", name, f)
			}
		}
	}
}

// commandHelp returns what `goweave NAME -h` prints.
func commandHelp(t *testing.T, c command) string {
	f, err := os.CreateTemp(t.TempDir(), "help")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stdout, stderr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = f, f
	c.run([]string{"-h"})
	os.Stdout, os.Stderr = stdout, stderr
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
