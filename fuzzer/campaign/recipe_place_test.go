package campaign

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis"
)

// A recipe names a package of its own module, and its finding files of that module; any
// other place is refused with a message saying which.
func TestRecipeCheckPlace(t *testing.T) {
	root := t.TempDir()
	mkmod := func(dir string) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module m\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, b, nested := filepath.Join(root, "a"), filepath.Join(root, "b"), filepath.Join(root, "a", "tools")
	mkmod(a)
	mkmod(b)
	mkmod(nested)
	os.MkdirAll(filepath.Join(a, "pkg"), 0o755)
	recipe := func(dir, module, file string) *Recipe {
		return &Recipe{Dir: dir, Module: module, Finding: Finding{Finding: analysis.Finding{Positions: []analysis.Position{{File: file, Line: 3}}}},
			Lines: []LineHash{{File: file, Line: 3}}}
	}
	inA := filepath.Join(a, "pkg", "x.go")
	if err := recipe(filepath.Join(a, "pkg"), a, inA).CheckPlace(); err != nil {
		t.Errorf("a recipe of its own module: %v", err)
	}
	for _, c := range []struct {
		name string
		r    *Recipe
		want string
	}{
		{"dir in another module", recipe(b, a, inA), "not inside its module"},
		{"dir and module moved to another module", recipe(b, b, inA), "outside its module"},
		{"dir in a nested module", recipe(nested, a, inA), "belongs to the module at " + nested},
		{"relative dir", recipe("pkg", a, inA), "absolute"},
		{"module without go.mod", recipe(filepath.Join(root, "c", "p"), filepath.Join(root, "c"), filepath.Join(root, "c", "p", "x.go")), "no go.mod"},
		{"no position", &Recipe{Dir: a, Module: a}, "no position"},
	} {
		err := c.r.CheckPlace()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}
