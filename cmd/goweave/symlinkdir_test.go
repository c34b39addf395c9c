package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/goweave/goweave/fuzzer"
)

// A module reached through a symbolic link, fuzzed from its root by a package pattern below
// it, as a shell in the linked directory runs `goweave fuzz ./pkg/`: goweave's PWD names the
// link, the build runs in the package's directory. Before fuzzer/build.InDir the overlay's go
// command inherited that PWD, which named another directory, so the compiler recorded the
// resolved file names while GOWEAVE_MODULE held the linked ones: no operation of the module
// was recorded and the leak below went unseen (0 bugs, exit 0).
func TestFuzzCommandModuleBehindSymlink(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes a test")
	}
	root := t.TempDir()
	real := filepath.Join(root, "real")
	files := map[string]string{
		"go.mod": "module linked\n\ngo 1.25\n",
		// Start's goroutine waits on a channel nobody sends on: a leak in every run.
		"pkg/pkg.go":      "package pkg\n\nfunc Start() {\n\tch := make(chan int)\n\tgo func() { <-ch }()\n}\n",
		"pkg/pkg_test.go": "package pkg\n\nimport \"testing\"\n\nfunc TestStart(t *testing.T) { Start() }\n",
	}
	for name, text := range files {
		p := filepath.Join(real, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	stdout, stderr, code := runGoweave(t, link, "fuzz", "-json", "-race=false", "-time", "3s", "-o", t.TempDir(), "./pkg/")
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if code != 1 || len(rep.Findings) != 1 || rep.Findings[0].Kind != "leak-chan" ||
		len(rep.Findings[0].Positions) == 0 || filepath.Base(rep.Findings[0].Positions[0].File) != "pkg.go" {
		t.Fatalf("exit %d, findings %+v; want 1 and the leak at pkg.go\n%s", code, rep.Findings, stderr)
	}
}
