package main

import (
	"os"
	"path/filepath"
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
