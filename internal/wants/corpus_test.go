package wants

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReadCorpusTable(t *testing.T) {
	readme := filepath.Join(t.TempDir(), "README.md")
	table := "| kernel | kinds expected | found by | plain run |\n|---|---|---|---|\n" +
		"| send_on_closed_predicted | send-on-closed @19 (rel 25) | predicted (see also note 1) | 20/20 pass |\n" +
		"| cyclic_deadlock_abba | cyclic-deadlock @21 (rel 19); deadlock @21 | cyclic-deadlock: predicted; deadlock: order fuzzing | 20/20 pass |\n" +
		"| leak_select | leak-select @28 | order fuzzing | 20/20 pass |\n" +
		"| correct_pipeline | none | - | 20/20 pass |\n"
	if err := os.WriteFile(readme, []byte(table), 0o644); err != nil {
		t.Fatal(err)
	}
	k, err := ReadCorpusTable(readme)
	if err != nil {
		t.Fatal(err)
	}
	if len(k) != 4 {
		t.Fatalf("got %d kernels, want 4: %v", len(k), k)
	}
	checks := []struct {
		kernel, kind string
		inOneRun     bool
	}{
		{"send_on_closed_predicted", "send-on-closed", true},
		{"cyclic_deadlock_abba", "cyclic-deadlock", true},
		{"cyclic_deadlock_abba", "deadlock", false},
		{"leak_select", "leak-select", false},
	}
	for _, c := range checks {
		if got := k[c.kernel].InOneRun(c.kind); got != c.inOneRun {
			t.Errorf("%s %s: InOneRun = %v, want %v (found by %q)", c.kernel, c.kind, got, c.inOneRun, k[c.kernel].FoundBy[c.kind])
		}
	}
	if len(k["correct_pipeline"].FoundBy) != 0 {
		t.Errorf("correct kernel expects kinds: %v", k["correct_pipeline"].FoundBy)
	}
}

func TestReadRealCorpusTable(t *testing.T) {
	readme := filepath.Join("..", "..", "..", "shared", "corpus", "README.md")
	if _, err := os.Stat(readme); err != nil {
		t.Skip("no ../shared/corpus beside the checkout")
	}
	k, err := ReadCorpusTable(readme)
	if err != nil {
		t.Fatal(err)
	}
	dirs, _ := filepath.Glob(filepath.Join(filepath.Dir(readme), "*", "*_test.go"))
	if len(k) != len(dirs) {
		t.Errorf("table has %d kernels, corpus has %d test files", len(k), len(dirs))
	}
	if !k["negative_waitgroup_predicted"].InOneRun("negative-waitgroup") || k["select_gfuzz"].InOneRun("negative-waitgroup") {
		t.Errorf("found-by parsed wrongly: %v %v", k["negative_waitgroup_predicted"], k["select_gfuzz"])
	}
}
