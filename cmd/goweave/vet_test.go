package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/fuzzer"
)

// goweave fuzz builds as go test does, go vet's checks included; -vet=off builds a module
// whose Example fails go vet, without GOFLAGS.
func TestFuzzCommandVet(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and fuzzes a package twice")
	}
	dir, _ := filepath.Abs("testdata/vetfails")
	fuzz := func(args ...string) (*fuzzer.Report, string, int) {
		cmd := exec.Command(buildGoweave(t), append([]string{"fuzz", "-json", "-race=false", "-runs", "2", "-o", t.TempDir()}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=") // not the caller's -vet=off
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		code := 0
		if err := cmd.Run(); err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatal(err)
			}
			code = ee.ExitCode()
		}
		var rep fuzzer.Report
		if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
			t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
		}
		return &rep, stderr.String(), code
	}
	rep, stderr, code := fuzz("./...")
	if code != 2 || len(rep.Tests) != 0 || !strings.Contains(stderr, "ExampleGoodbye refers to unknown identifier: Goodbye") {
		t.Errorf("default vet: exit %d, tests %+v; want 2, none, and vet's complaint\n%s", code, rep.Tests, stderr)
	}
	if strings.Contains(stderr, "build with plain go") {
		t.Errorf("default vet: a vet failure of the module is blamed on goweave's runtime:\n%s", stderr)
	}
	rep, stderr, code = fuzz("-vet=off", "./...")
	if code != 0 || len(rep.Tests) != 2 {
		t.Errorf("-vet=off: exit %d, tests %+v; want 0 and both tests fuzzed\n%s", code, rep.Tests, stderr)
	}
}
