package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
)

// A WaitGroup's Wait guarded by an atomic flag of a dependency (testdata/depatomicwrap,
// replaced; a wrapper over sync/atomic's functions, as go.uber.org/atomic's Bool, which
// gocron's Stop checks), on the module of testdata/depatomic:
//   - TestGuarded: Start adds, then sets the flag; the stopper waits only once it sees the
//     flag: ordered, no finding (before: a predicted data-race between the Add and the Wait,
//     which the unrecorded flag left ordered only by the context's lock, as the bug's);
//   - TestAddInLoop: the loop adds after it starts, unordered with the Wait whatever the
//     flag says (the flag is set before the go statement): the data-race at the Add and the
//     Wait is still found.
func TestFuzzDependencyAtomicFlag(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes two tests with -race")
	}
	dir, _ := filepath.Abs("testdata/depatomic")
	got := findingsByTest(dir, fuzzAll20(t, dir))
	runner := filepath.Join(dir, "runner.go")
	want := fmt.Sprintf("data-race add@%s wait@%s", lineOf(t, dir, runner, "// the racing Add"), lineOf(t, dir, runner, "// the Wait"))
	// The race detector may report the same race again, at the stopper's call and Start.
	if !slices.Contains(got["TestAddInLoop"], want) {
		t.Errorf("TestAddInLoop: findings %q, want %s among them", got["TestAddInLoop"], want)
	}
	if len(got["TestGuarded"]) != 0 {
		t.Errorf("TestGuarded: findings %q, want none (the flag orders the Add before the Wait)", got["TestGuarded"])
	}
}
