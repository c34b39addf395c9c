package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// generatedPackage writes a package of n test files, each with 10 test functions and
// as many helpers.
func generatedPackage(b *testing.B, n int) []string {
	dir := b.TempDir()
	write(b, filepath.Join(dir, "go.mod"), "module example.com/gen\n\ngo 1.26\n")
	var files []string
	for i := range n {
		var src strings.Builder
		fmt.Fprintf(&src, "package gen\n\nimport (\n\t\"sync\"\n\t\"testing\"\n)\n\n")
		for j := range 10 {
			fmt.Fprintf(&src, "func helper%d_%d(c chan int, mu *sync.Mutex) {\n\tmu.Lock()\n\tc <- %d\n\tmu.Unlock()\n}\n\n", i, j, j)
			fmt.Fprintf(&src, "func TestGen%d_%d(t *testing.T) {\n\tc := make(chan int, 1)\n\tvar mu sync.Mutex\n\tgo helper%d_%d(c, &mu)\n\tselect {\n\tcase v := <-c:\n\t\t_ = v\n\t}\n}\n\n", i, j, i, j)
		}
		path := filepath.Join(dir, fmt.Sprintf("gen%03d_test.go", i))
		write(b, path, src.String())
		files = append(files, path)
	}
	return files
}

// BenchmarkCodeLens measures a textDocument/codeLens round trip through the jsonrpc2
// connection, on the files of a 200-file test package (target: < 20 ms).
func BenchmarkCodeLens(b *testing.B) {
	files := generatedPackage(b, 200)
	se := newSession(b, &fakeEngine{}, sessionOption{root: filepath.Dir(files[0]), initOptions: map[string]any{"backgroundFuzzing": false}})
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		lenses, err := se.remote.CodeLens(se.ctx(), &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(files[i%len(files)])}})
		if err != nil || len(lenses) != 11 {
			b.Fatalf("%d lenses, %v", len(lenses), err)
		}
	}
}

// BenchmarkFirstDiagnostic measures the time from goweave.fuzz_test to the first
// diagnostic with the real engine on testdata/buggy, the test binary's build cached.
func BenchmarkFirstDiagnostic(b *testing.B) {
	dir := b.TempDir()
	for _, name := range []string{"go.mod", "publish_test.go"} {
		data, err := os.ReadFile(filepath.Join("testdata", "buggy", name))
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	testFile := filepath.Join(dir, "publish_test.go")
	se := newSession(b, FuzzerEngine{}, sessionOption{root: dir, initOptions: map[string]any{"backgroundFuzzing": false, "runsPerTest": 5}})
	run := func() time.Duration {
		if _, err := se.execute("goweave.clear", ClearArgs{}); err != nil {
			b.Fatal(err)
		}
		deadline := time.Now().Add(time.Minute)
		for {
			if p, ok := se.client.diagsOf(testFile); !ok || len(p.Diagnostics) == 0 {
				break
			}
			if time.Now().After(deadline) {
				b.Fatal("diagnostics not cleared")
			}
			time.Sleep(time.Millisecond)
		}
		start := time.Now()
		if _, err := se.execute("goweave.fuzz_test", FuzzTestArgs{URI: uri.File(testFile), Test: "TestPublish"}); err != nil {
			b.Fatal(err)
		}
		for {
			if p, ok := se.client.diagsOf(testFile); ok && len(p.Diagnostics) > 0 {
				elapsed := time.Since(start)
				// Let the campaign finish so that runs do not overlap.
				for {
					if _, running := se.server.campaigns.status(dir); !running {
						return elapsed
					}
					time.Sleep(time.Millisecond)
				}
			}
			if time.Now().After(deadline) {
				b.Fatal("no diagnostic within a minute")
			}
			time.Sleep(time.Millisecond)
		}
	}
	run() // warm the build cache
	b.ResetTimer()
	var total time.Duration
	n := 0
	for b.Loop() {
		total += run()
		n++
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(n), "ms/first-diagnostic")
}
