package analysis

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/internal/wants"
)

// TestCorpusOneRun records one plain run of every corpus kernel with `goweave record` and
// analyzes each trace: every kind the corpus table marks "actual" or "predicted" must be
// reported on its want line, and nothing may be reported outside the annotations (the
// correct_* kernels: nothing at all). Skips without ../shared/corpus or in -short mode.
func TestCorpusOneRun(t *testing.T) {
	if testing.Short() {
		t.Skip("records the corpus (about 30 s)")
	}
	corpus, _ := filepath.Abs(filepath.Join("..", "..", "shared", "corpus"))
	if _, err := os.Stat(filepath.Join(corpus, "go.mod")); err != nil {
		t.Skipf("no corpus at %s", corpus)
	}
	kernels, err := wants.ReadCorpusTable(filepath.Join(corpus, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "goweave")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/goweave").CombinedOutput(); err != nil {
		t.Skipf("no recorder: building goweave: %v\n%s", err, out)
	}
	out := t.TempDir()
	// a generous per-test limit: the machine may be busy, and a kernel cut short by the
	// limit would be a recording problem, not an analysis one
	rec := exec.Command(bin, "record", "-timeout", "60s", "-o", out, "./...")
	rec.Dir = corpus
	recOut, err := rec.CombinedOutput()
	if err != nil && !strings.Contains(string(recOut), "events") {
		t.Fatalf("goweave record: %v\n%s", err, recOut)
	}
	traces := map[string]string{} // kernel -> trace
	filepath.WalkDir(out, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".trace") {
			rel := filepath.ToSlash(path)
			if i := strings.Index(rel, "/corpus/"); i >= 0 {
				traces[strings.Split(rel[i+len("/corpus/"):], "/")[0]] = path
			}
		}
		return nil
	})
	for name, k := range kernels {
		t.Run(name, func(t *testing.T) {
			path, ok := traces[name]
			if !ok {
				t.Fatalf("no trace recorded; goweave record said:\n%s", recOut)
			}
			tr, err := trace.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var reports []wants.Report
			for _, f := range Analyze(tr).Findings {
				if len(f.Positions) > 0 {
					reports = append(reports, wants.Report{Kind: f.Kind, File: f.Positions[0].File, Line: f.Positions[0].Line})
				}
			}
			a, err := wants.ParseDir(filepath.Join(corpus, name))
			if err != nil {
				t.Fatal(err)
			}
			res := a.Match(reports)
			if !res.OK() {
				t.Logf("trace %s (exit %s); findings: %v", path, tr.Meta["exit"], reports)
			}
			for _, u := range res.Unexpected {
				t.Errorf("unexpected %s at %s:%d", u.Kind, filepath.Base(u.File), u.Line)
			}
			for _, m := range res.Missing {
				if k.InOneRun(m.Kind) {
					t.Errorf("missing %s (found by: %s)", m, k.FoundBy[m.Kind])
				}
			}
		})
	}
}
