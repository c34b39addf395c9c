package campaign

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/fuzzer/build"
	"github.com/goweave/goweave/fuzzer/run"
)

// An Example with an unordered Output comment differs by the lines its output lacks or has
// too many of, not by the first line in order (which the comment allows anywhere).
func TestOutcomeExampleUnorderedOutput(t *testing.T) {
	dir := t.TempDir()
	src := "package w\n\nimport \"fmt\"\n\nfunc Example_pool() {\n\tfmt.Println(\"index: 0\")\n\tfmt.Println(\"index: 1\")\n\tfmt.Println(\"done: 2\")\n\t// Unordered output:\n\t// index: 1\n\t// index: 0\n\t// done: 2\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "w_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := &build.TestBinary{Package: "example.com/w", Dir: dir, Module: dir}
	out := "=== RUN   Example_pool\n--- FAIL: Example_pool (0.00s)\ngot:\nindex: 0\nindex: 1\ndone: 1\nwant (unordered):\nindex: 1\nindex: 0\ndone: 2\nFAIL\n"
	fs := outcomeFindings(bin, "Example_pool", &run.Run{Status: run.StatusFail, Output: out})
	if len(fs) != 1 || fs[0].Kind != "flaky-failure" || len(fs[0].Positions) != 2 || fs[0].Positions[1].Line != 9 {
		t.Fatalf("findings %+v, want a flaky-failure at the Example, its Output comment (line 9) related", fs)
	}
	want := `output differs from its // Unordered output: comment: missing "done: 2"; not expected "done: 1"`
	if !strings.Contains(fs[0].Message, want) {
		t.Errorf("message %q, want it to say %s", fs[0].Message, want)
	}
	if strings.Contains(fs[0].Message, "line 1") {
		t.Errorf("message %q names a line by its order", fs[0].Message)
	}
}

func TestUnorderedDiff(t *testing.T) {
	for _, c := range []struct {
		got, want []string
		diff      string
	}{
		{[]string{"a", "b"}, []string{"b", "a"}, "the same lines"},
		{[]string{"a"}, []string{"b", "a"}, `missing "b"`},
		{[]string{"a", "a", "c"}, []string{"a", "b"}, `missing "b"; not expected "a", "c"`},
		{[]string{"x", "y", "z", "w"}, nil, `not expected "x", "y", "z" and 1 more`},
	} {
		if d := unorderedDiff(c.got, c.want); d != c.diff {
			t.Errorf("unorderedDiff(%q, %q) = %q, want %q", c.got, c.want, d, c.diff)
		}
	}
}
