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

// TestFuzzModuleNeedingNewerGo: a module whose go.mod says `go 1.27.0`, fuzzed
// from a machine whose installed Go is older, is built and recorded with the
// toolchain the go command downloads for it (GOTOOLCHAIN=auto, the default),
// and its bug is found. Skipped when the installed Go is already 1.27 or
// newer, and with -short (downloads go1.27.0 once, builds the standard
// library with the overlay).
func TestFuzzModuleNeedingNewerGo(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads a toolchain and builds the standard library with the overlay")
	}
	out, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		t.Fatal(err)
	}
	if installed := strings.TrimSpace(string(out)); !strings.HasPrefix(installed, "go1.25.") && !strings.HasPrefix(installed, "go1.26.") {
		t.Skipf("installed Go is %s, not older than the module's go1.27.0", installed)
	}
	mod := t.TempDir()
	files := map[string]string{
		"go.mod": "module newgo\n\ngo 1.27.0\n",
		"newgo_test.go": `package newgo

import (
	"runtime"
	"strings"
	"testing"
)

func TestForgottenSender(t *testing.T) {
	c := make(chan int)
	go func() {
		c <- 1 // line 12: the leak
	}()
	// Return once the sender is blocked, so that the one run shows the leak.
	buf := make([]byte, 1<<16)
	for !strings.Contains(string(buf[:runtime.Stack(buf, true)]), "[chan send") {
		runtime.Gosched()
	}
}
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(mod, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(t.TempDir(), "goweave")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building goweave: %v\n%s", err, out)
	}
	env := append(os.Environ(), "GOTOOLCHAIN=auto")

	cmd := exec.Command(bin, "version")
	cmd.Dir, cmd.Env = mod, env
	version, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(version), "go1.27.0") || !strings.Contains(string(version), "supported: yes") {
		t.Fatalf("goweave version in a go 1.27.0 module: %v\n%s", err, version)
	}

	cmd = exec.Command(bin, "fuzz", "-json", "-o", t.TempDir(), "-strategy", "record", "-runs", "1", "./...")
	cmd.Dir, cmd.Env = mod, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
		t.Fatalf("goweave fuzz: %v\nstderr:\n%s", err, stderr.String())
	}
	var report fuzzer.Report
	if err := json.Unmarshal(stdout.Bytes(), &report); err != nil {
		t.Fatalf("decoding goweave's JSON: %v\n%s", err, stdout.String())
	}
	found := false
	for _, f := range report.Findings {
		// Go 1.27's GC leak detection proves the leak.
		if f.Kind == "leak-chan" && len(f.Positions) > 0 && filepath.Base(f.Positions[0].File) == "newgo_test.go" && f.Positions[0].Line == 12 &&
			strings.Contains(f.Message, "proven") {
			found = true
		}
	}
	if !found {
		t.Errorf("no proven leak-chan at newgo_test.go:12 in %+v\nstderr:\n%s", report.Findings, stderr.String())
	}
}
