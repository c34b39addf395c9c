package campaign

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The index finds the newest recipe of an ID that still exists, from any directory, and
// stays bounded: past its size limit it keeps one line per ID whose recipe exists.
func TestFindingIndex(t *testing.T) {
	dir := t.TempDir()
	index := filepath.Join(dir, "cache", "findings.idx")
	defer func(f func() (string, error)) { indexPath = f }(indexPath)
	indexPath = func() (string, error) { return index, nil }
	recipe := func(campaign, id string) string {
		path := filepath.Join(dir, campaign, "findings", id+".json")
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	const id, other = "GW0123456789", "GWabcdefabcd"
	older, newer := recipe("c1", id), recipe("c2", id)
	if err := indexRecipes(map[string]string{id: older, other: recipe("c1", other)}); err != nil {
		t.Fatal(err)
	}
	if err := indexRecipes(map[string]string{id: newer}); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	if got, err := FindRecipe("", ".", id); err != nil || got != newer {
		t.Errorf("FindRecipe from elsewhere = %q, %v; want the newest, %s", got, err, newer)
	}
	os.Remove(newer)
	if got, ok := lookupIndex(id, "."); !ok || got != older {
		t.Errorf("newest recipe removed: %q, %v; want the older %s", got, ok, older)
	}
	if got, err := FindRecipe(filepath.Join(dir, "c1-out"), ".", id); err == nil {
		t.Errorf("with -o, only that directory is searched; got %s", got)
	}

	maxIndexBytes = 1
	defer func() { maxIndexBytes = 1 << 20 }()
	os.Remove(older)
	if err := indexRecipes(map[string]string{"GW1111111111": recipe("c3", "GW1111111111")}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(index)
	if lines := strings.Count(string(data), "\n"); lines != 2 || strings.Contains(string(data), id) {
		t.Errorf("compacted index:\n%s\nwant the two IDs whose recipes exist", data)
	}
	if _, ok := lookupIndex(other, "."); !ok {
		t.Errorf("%s lost by compaction", other)
	}
}

// Copies of one module find the same IDs: each copy's replay takes its own recipe, from the
// index and from a shared -o alike, whichever copy's campaign wrote last.
func TestFindRecipeOfOwnModule(t *testing.T) {
	dir := t.TempDir()
	defer func(f func() (string, error)) { indexPath = f }(indexPath)
	indexPath = func() (string, error) { return filepath.Join(dir, "cache", "findings.idx"), nil }
	const id = "GW0123456789"
	out := filepath.Join(dir, "out")
	modA, modB := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	recipe := func(campaign, module string) string {
		path := filepath.Join(out, campaign, "findings", id+".json")
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(`{"module": "`+module+`"}`), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := indexRecipes(map[string]string{id: path}); err != nil {
			t.Fatal(err)
		}
		return path
	}
	ofA := recipe("20261127T100000.000-1-1", modA)
	ofB := recipe("20261127T100000.000-2-1", modB) // the newest
	for _, o := range []string{"", out} {
		if got, err := FindRecipe(o, filepath.Join(modA, "pkg"), id); err != nil || got != ofA {
			t.Errorf("-o %q, from module a: %q, %v; want a's recipe %s", o, got, err, ofA)
		}
		if got, err := FindRecipe(o, modB, id); err != nil || got != ofB {
			t.Errorf("-o %q, from module b: %q, %v; want b's recipe %s", o, got, err, ofB)
		}
		if got, err := FindRecipe(o, filepath.Join(dir, "elsewhere"), id); err != nil || got != ofB {
			t.Errorf("-o %q, from outside both: %q, %v; want the newest, %s", o, got, err, ofB)
		}
	}
}
