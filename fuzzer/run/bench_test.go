//go:build unix

package run

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/build"
)

// BenchmarkRunRecorded measures one recorded run of a tiny test: process start, the test,
// the trace flush at exit, and reading the trace back. runs/s = 1e9 / ns/op.
func BenchmarkRunRecorded(b *testing.B) {
	bin := statusesBinary(b)
	path := filepath.Join(b.TempDir(), "run.trace")
	for b.Loop() {
		r, err := Test(context.Background(), bin, "TestPass", Options{Trace: path})
		if err != nil || r.Status != StatusPass {
			b.Fatalf("run: %v %v", err, r)
		}
		if _, err := trace.ReadFile(r.Trace); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildCached measures building a test binary with the overlay when the build
// cache is warm (the cost of every campaign start): go list, go test -c, -test.list.
func BenchmarkBuildCached(b *testing.B) {
	overlay, err := build.Overlay(context.Background(), "testdata/statuses")
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	for b.Loop() {
		if _, err := build.Build(context.Background(), build.Options{Dir: "testdata/statuses", BinDir: dir, Overlay: overlay}); err != nil {
			b.Fatal(err)
		}
	}
	os.RemoveAll(dir)
}
