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

// BenchmarkOpenToFirstDiagnostic measures the time from didOpen of a test file to its
// first diagnostic in a new session (an editor started again), background fuzzing on,
// with the real engine on testdata/buggy and the build cache warm:
//   - unchanged: the package is as the last campaign left it: its saved findings are
//     published before anything is built (lastcampaign.go);
//   - edited: a file of the package changed on disk since: the campaign builds, runs
//     and analyzes first;
//   - nothing-saved: the package is unchanged, but no findings were saved (as before
//     the saved findings existed): the campaign builds the same binary, and its first
//     diagnostic is the engine's state restored after the build.
//
// Each iteration lets the campaign end (runsPerTest 5) and shuts the session down. The
// untimed first session (nothing saved yet) is reported as first-session-ms: with empty
// caches (XDG_CACHE_HOME and GOCACHE new directories) that is the cold figure.
func BenchmarkOpenToFirstDiagnostic(b *testing.B) {
	for _, mode := range []string{"unchanged", "edited", "nothing-saved"} {
		b.Run(mode, func(b *testing.B) {
			dir := b.TempDir()
			for _, name := range []string{"go.mod", "publish_test.go"} {
				data, err := os.ReadFile(filepath.Join("testdata", "buggy", name))
				if err != nil {
					b.Fatal(err)
				}
				write(b, filepath.Join(dir, name), string(data))
			}
			testFile := filepath.Join(dir, "publish_test.go")
			saved := b.TempDir()
			opts := sessionOption{caps: fullCaps(), root: dir, serverOpts: []Option{withLastCampaignDir(saved)},
				initOptions: map[string]any{"backgroundFuzzing": true, "runsPerTest": 5}}
			session := func() time.Duration {
				se := newSession(b, FuzzerEngine{}, opts)
				se.requestTimeout = 10 * time.Minute
				start := time.Now()
				se.open(testFile)
				waitUpTo(b, 10*time.Minute, "the first diagnostic", func() bool {
					p, ok := se.client.diagsOf(testFile)
					return ok && len(p.Diagnostics) > 0
				})
				elapsed := time.Since(start)
				waitUpTo(b, 10*time.Minute, "the campaign's end", func() bool {
					_, running := se.server.campaigns.status(dir)
					return !running
				})
				se.shutdown()
				return elapsed
			}
			first := session() // the build cache, the engine's state and the saved findings
			var total time.Duration
			n := 0
			for b.Loop() {
				switch mode {
				case "edited":
					f, err := os.OpenFile(testFile, os.O_APPEND|os.O_WRONLY, 0)
					if err != nil {
						b.Fatal(err)
					}
					fmt.Fprintf(f, "\n// edit %d\n", n)
					f.Close()
				case "nothing-saved":
					files, _ := filepath.Glob(filepath.Join(saved, "*"))
					for _, f := range files {
						os.Remove(f)
					}
				}
				total += session()
				n++
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(n), "ms/first-diagnostic")
			b.ReportMetric(float64(first.Milliseconds()), "first-session-ms") // after the loop, which resets the metrics
		})
	}
}
