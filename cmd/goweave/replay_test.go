package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goweave/goweave/fuzzer"
)

// copyDir copies the files of a flat directory.
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// treeOf lists the files below dir.
func treeOf(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestReplayCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes and replays a test program")
	}
	src := t.TempDir()
	copyDir(t, "../../fuzzer/replay/testdata/replay", src)
	out := t.TempDir()
	stdout, stderr, code := runGoweave(t, src, "fuzz", "-json", "-runs", "1", "-run", "^TestCloseRace$", "-o", out, "./...")
	if code != 1 {
		t.Fatalf("fuzz exit %d\n%s", code, stderr)
	}
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	var f *fuzzer.Finding
	for i := range rep.Findings {
		if rep.Findings[i].Kind == "send-on-closed" {
			f = &rep.Findings[i]
		}
	}
	if f == nil || f.Confidence != "confirmed" || f.Recipe == "" {
		t.Fatalf("want a confirmed send-on-closed with a recipe; findings %+v", rep.Findings)
	}

	// By id, after fuzz has exited.
	stdout, stderr, code = runGoweave(t, src, "replay", "-o", out, f.ID)
	if code != 1 {
		t.Fatalf("replay exit %d, want 1 (the bug happened)\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{f.ID + ": send-on-closed (confirmed)", "reproduced in 1 run(s): confirmed", "panic: send on closed channel", "run it again:"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("replay output lacks %q:\n%s", want, stdout)
		}
	}
	// The printed command line repeats the run without goweave.
	_, command, ok := strings.Cut(stdout, "run it again:\n\t")
	if !ok {
		t.Fatalf("no command in\n%s", stdout)
	}
	again, _ := exec.Command("sh", "-c", strings.TrimSpace(command)).CombinedOutput()
	if !strings.Contains(string(again), "panic: send on closed channel") {
		t.Errorf("the printed command did not repeat the panic:\n%s\n%s", command, again)
	}

	// By id alone, from another directory: the index of finding IDs in goweave's cache
	// finds the campaign, whatever -o it used.
	stdout, stderr, code = runGoweave(t, t.TempDir(), "replay", f.ID)
	if code != 1 || !strings.Contains(stdout, "reproduced in 1 run(s)") {
		t.Errorf("replay %s from another directory: exit %d\n%s%s", f.ID, code, stdout, stderr)
	}

	// By recipe file, as JSON.
	stdout, _, code = runGoweave(t, src, "replay", "-json", f.Recipe)
	var o replayOutput
	if err := json.Unmarshal([]byte(stdout), &o); err != nil || code != 1 || !o.Reproduced || o.Outcome != fuzzer.OutcomeConfirmed {
		t.Errorf("replay -json: exit %d, %+v, %v", code, o, err)
	}

	// A relative recipe path (a recipe copied into the source tree) replays, and the replay
	// writes nothing into the source tree.
	os.MkdirAll(filepath.Join(src, "recipes"), 0o755)
	data, err := os.ReadFile(f.Recipe)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(src, "recipes", "x.json"), data, 0o644)
	before := treeOf(t, src)
	stdout, stderr, code = runGoweave(t, src, "replay", "recipes/x.json")
	if code != 1 {
		t.Errorf("replay recipes/x.json: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	if after := treeOf(t, src); !slices.Equal(after, before) {
		t.Errorf("replay wrote into the source tree: %v, was %v", after, before)
	}
	// A recipe whose dir names another module is refused before anything is built or run.
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "go.mod"), []byte("module other\n"), 0o644)
	var rec map[string]any
	json.Unmarshal(data, &rec)
	rec["dir"] = other
	moved, _ := json.Marshal(rec)
	os.WriteFile(filepath.Join(src, "recipes", "moved.json"), moved, 0o644)
	replays := t.TempDir()
	_, stderr, code = runGoweave(t, src, "replay", "-o", replays, "recipes/moved.json")
	if entries, _ := os.ReadDir(replays); code != 2 || !strings.Contains(stderr, "not inside its module") || len(entries) != 0 {
		t.Errorf("recipe naming another module: exit %d, %d entries written, stderr %s", code, len(entries), stderr)
	}

	// Unknown ids and changed source are errors, not replays.
	if _, stderr, code := runGoweave(t, src, "replay", "-o", out, "GW0000000000"); code != 2 || !strings.Contains(stderr, "no recipe") {
		t.Errorf("unknown id: exit %d, %s", code, stderr)
	}
	file := filepath.Join(src, "replay_test.go")
	text, _ := os.ReadFile(file)
	os.WriteFile(file, []byte(strings.Replace(string(text), "results <- 42", "results <- 43", 1)), 0o644)
	_, stderr, code = runGoweave(t, src, "replay", "-o", out, f.ID)
	if code != 2 || !strings.Contains(stderr, "source changed") || !strings.Contains(stderr, "replay_test.go:17") {
		t.Errorf("replay of changed source: exit %d, %s", code, stderr)
	}
}
