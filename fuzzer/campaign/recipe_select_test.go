package campaign

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goweave/goweave/fuzzer/schedule"
)

// A schedule's select preference numbers cases as the runtime orders them, so a recipe
// depends on the order of the select's clauses, not only on its select line: clauses that
// swapped places refuse the replay.
func TestRecipeRefusesReorderedSelectCases(t *testing.T) {
	const src = "package p\n\nfunc f(in, done chan int) {\n\tselect {\n\tcase <-in:\n\tcase <-done:\n\tdefault:\n\t}\n}\n"
	file := filepath.Join(t.TempDir(), "p.go")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := schedule.Marshal(&schedule.Schedule{Selects: []schedule.SelectPreference{
		{Pos: schedule.Pos{File: file, Line: 4}, Window: 30 * time.Millisecond, Cases: []int{1}}}})
	if err != nil {
		t.Fatal(err)
	}
	r := &Recipe{Schedule: string(s)}
	r.Lines = newLineHasher().hashes(r.namedPositions())
	var lines []int
	for _, l := range r.Lines {
		lines = append(lines, l.Line)
	}
	if want := []int{4, 5, 6, 7}; !slices.Equal(lines, want) {
		t.Fatalf("recipe lines %v, want the select and its clauses %v", lines, want)
	}
	if err := r.CheckSource(); err != nil {
		t.Fatalf("unchanged source: %v", err)
	}
	swapped := strings.Replace(src, "\tcase <-in:\n\tcase <-done:\n", "\tcase <-done:\n\tcase <-in:\n", 1)
	if err := os.WriteFile(file, []byte(swapped), 0o644); err != nil {
		t.Fatal(err)
	}
	err = r.CheckSource()
	var changed *SourceChangedError
	if !errors.As(err, &changed) || len(changed.Lines) != 2 || !strings.Contains(err.Error(), "p.go:5, p.go:6 no longer read as recorded") {
		t.Errorf("swapped clauses: %v", err)
	}
}
