package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/fuzzer"
)

// testdata/sharedport's two tests each listen on one fixed port, as redigo's harness starts
// its server on :16379 (survey 7, class 10). go test runs one process per package, so they
// pass; two processes at once (-p 2) make one fail with "bind: address already in use".
// That is the campaign's parallelism, not a bug of the module: no finding, exit 0, every
// counted run passes; when the processes did collide the warnings say the package's runs
// were serialised, once.
func TestFuzzCommandSharedPort(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes two tests")
	}
	// A port below the kernel's ephemeral range (32768-60999 on Linux), free now: the fixed
	// port it had, 47391, is one the kernel hands to other programs' connections, and the
	// whole suite under load failed 41 of 54 runs on a listener that was not the test's.
	t.Setenv("SHAREDPORT_ADDR", freeFixedPort(t))
	dir, _ := filepath.Abs("testdata/sharedport")
	stdout, stderr, code := runGoweave(t, dir, "fuzz", "-json", "-race=false", "-p", "2", "-time", "6s", "-o", t.TempDir(), "./...")
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if code != 0 || len(rep.Findings) != 0 || len(rep.Errors) != 0 {
		t.Errorf("exit %d, findings %+v, errors %q; want 0 and none\n%s", code, rep.Findings, rep.Errors, stderr)
	}
	for _, tr := range rep.Tests {
		if tr.Runs == 0 || tr.Statuses["pass"] != tr.Runs {
			t.Errorf("%s: %d runs, %v; want runs, all passing", tr.Test, tr.Runs, tr.Statuses)
		}
	}
	n := 0
	for _, w := range rep.Warnings {
		if strings.HasPrefix(w, "runs of package sharedport serialised: its tests collide on a fixed resource when run in parallel (") {
			n++
			if !strings.Contains(w, "bind: address already in use") {
				t.Errorf("warning %q does not name the collision", w)
			}
		}
	}
	if n > 1 {
		t.Errorf("%d serialisation warnings, want at most one: %q", n, rep.Warnings)
	}
	t.Logf("warnings %q", rep.Warnings)
}

// freeFixedPort returns a loopback address on a port outside the ephemeral range that no
// one listens on now.
func freeFixedPort(t *testing.T) string {
	for port := 20000 + os.Getpid()%5000; port < 32000; port += 7 {
		a := fmt.Sprintf("127.0.0.1:%d", port)
		if ln, err := net.Listen("tcp", a); err == nil {
			ln.Close()
			return a
		}
	}
	t.Fatal("no free port in 20000-32000")
	return ""
}
