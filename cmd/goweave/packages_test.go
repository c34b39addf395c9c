package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goweave/goweave/fuzzer"
)

// Go files name their directory's package and, through -run, the tests they declare, as
// go test x_test.go runs those; packages and patterns pass through.
func TestPackageArgs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	a := write("a_test.go", "package p\nimport \"testing\"\nfunc TestA(t *testing.T) {}\nfunc Testable() {}\nfunc TestÄ(t *testing.T) {}\nfunc helper(t *testing.T) {}\n")
	b := write("b_test.go", "package p\nimport \"testing\"\nfunc TestB(t *testing.T) {}\nfunc BenchmarkB(b *testing.B) {}\n")
	code := write("p.go", "package p\n")

	patterns, run, err := packageArgs([]string{a, b}, "")
	if err != nil || !slices.Equal(patterns, []string{dir}) || run != "^(TestA|TestÄ|TestB)$" {
		t.Errorf("two test files: %v, %q, %v; want [%s], ^(TestA|TestÄ|TestB)$", patterns, run, err, dir)
	}
	if _, run, err = packageArgs([]string{a, b}, "B$"); err != nil || run != "^(TestB)$" {
		t.Errorf("with -run B$: %q, %v; want ^(TestB)$", run, err)
	}
	if patterns, _, err = packageArgs([]string{"x/a_test.go"}, ""); err == nil || len(patterns) != 0 {
		t.Errorf("a missing file: %v, %v; want an error", patterns, err)
	}
	for _, args := range [][]string{{code}, {a, "./..."}, {a, filepath.Join(t.TempDir(), "c_test.go")}} {
		if _, _, err := packageArgs(args, ""); err == nil {
			t.Errorf("%v: accepted", args)
		}
	}
	for _, args := range [][]string{nil, {"./..."}, {"./crawler", "example.com/m/p"}} {
		patterns, run, err := packageArgs(args, "X")
		if err != nil || !slices.Equal(patterns, args) || run != "X" {
			t.Errorf("%v: %v, %q, %v; want them unchanged", args, patterns, run, err)
		}
	}
	t.Chdir(dir)
	if patterns, _, err := packageArgs([]string{"a_test.go"}, ""); err != nil || !slices.Equal(patterns, []string{"."}) {
		t.Errorf("a file of the current directory: %v, %v; want [.]", patterns, err)
	}
	t.Chdir(filepath.Dir(dir))
	sub := filepath.Base(dir)
	if patterns, _, err := packageArgs([]string{sub + "/a_test.go"}, ""); err != nil || !slices.Equal(patterns, []string{"./" + sub}) {
		t.Errorf("a file of a subdirectory: %v, %v; want [./%s]", patterns, err, sub)
	}
}

func TestCheckModule(t *testing.T) {
	if err := checkModule(t.TempDir()); !errors.Is(err, errNoModule) {
		t.Errorf("outside a module: %v, want %v", err, errNoModule)
	}
	if err := checkModule("../../examples"); err != nil {
		t.Errorf("in examples/: %v", err)
	}
}

// End to end: goweave fuzz FILE fuzzes the tests of that file; outside a module it says
// what to do instead of go list's error.
func TestFuzzCommandPackageArgs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an example")
	}
	dir, _ := filepath.Abs("../../examples")
	stdout, stderr, code := runGoweave(t, dir, "fuzz", "-json", "-runs", "1", "-o", t.TempDir(), "replicas/replicas_test.go")
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if len(rep.Tests) != 1 || rep.Tests[0].Test != "TestFirstAnswerWins" || code != 1 {
		t.Errorf("fuzz replicas/replicas_test.go: exit %d, tests %+v; want TestFirstAnswerWins and its leak\n%s", code, rep.Tests, stderr)
	}

	_, stderr, code = runGoweave(t, t.TempDir(), "fuzz", "./...")
	if code != 2 || !strings.Contains(stderr, errNoModule.Error()) {
		t.Errorf("outside a module: exit %d, stderr %q; want 2 and %q", code, stderr, errNoModule)
	}
}
