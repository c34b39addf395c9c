package fuzzer

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goweave/goweave/internal/wants"
)

// corpusDir is the acceptance corpus beside the checkout (../shared/corpus from the repo
// root); tests that need it skip without it.
func corpusDir(t *testing.T) string {
	dir, err := filepath.Abs(filepath.Join("..", "..", "shared", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Skipf("no corpus at %s", dir)
	}
	return dir
}

// Recording the whole corpus builds every kernel once and runs each test once: the kernels
// whose plain run fails end in a panic, the others pass, and (with the goweave runtime)
// every run leaves a readable trace, the failing ones included.
func TestRecordCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every corpus kernel")
	}
	corpus := corpusDir(t)
	kernels, err := wants.ReadCorpusTable(filepath.Join(corpus, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	overlay, err := prepareOverlay(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]*AnalyzedRun{}
	cfg := Config{Dir: corpus, OutDir: t.TempDir(), RunTimeout: 20 * time.Second}
	err = Record(context.Background(), cfg, func(r *AnalyzedRun) { runs[filepath.Base(r.Package)] = r })
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != len(kernels) {
		t.Errorf("recorded %d tests, the corpus table has %d kernels", len(runs), len(kernels))
	}
	for name, k := range kernels {
		r := runs[name]
		if r == nil {
			t.Errorf("%s: not run", name)
			continue
		}
		fails := false
		for _, how := range k.FoundBy {
			fails = fails || strings.HasPrefix(how, "actual (fails)")
		}
		want := StatusPass
		if fails {
			want = StatusPanic
		}
		if r.Status != want {
			t.Errorf("%s: status %s, want %s\n%s", name, r.Status, want, r.Output)
		}
		if overlay == "" {
			continue // stock runtime: nothing records a trace yet
		}
		if r.TraceErr != nil || r.Events == 0 {
			t.Errorf("%s: no usable trace (%d events): %v", name, r.Events, r.TraceErr)
		}
	}
}
