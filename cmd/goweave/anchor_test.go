package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/fuzzer"
)

// Where goweave anchors findings whose operations are not the test's own (issue 21), on the
// module of testdata/anchor:
//   - wgpool: a WaitGroup Add inside the goroutine the package's Go starts races with the
//     package's Wait: a data-race at the Add and the Wait in pool.go, with the test's calls
//     of Go and Wait as related positions (before: none; the race detector's report of it
//     names no line of the module);
//   - atomicmix: a plain write of a word a typed atomic Stores: a data-race at the plain write
//     with the atomic Store (before: none; the atomic side's stack stops in sync/atomic);
//   - client: a dependency (testdata/anchordep, replaced) makes a channel in Dial and closes
//     it as a signal in its own goroutine: no finding (before: a recv-on-closed with both
//     ends on the test's Dial line).
func TestFuzzCommandAnchors(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes three tests with -race")
	}
	dir, _ := filepath.Abs("testdata/anchor")
	rep := fuzzAll20(t, dir)
	got := findingsByTest(dir, rep)
	for _, f := range rep.Findings {
		if len(f.Positions) >= 2 && f.Positions[0].File == f.Positions[1].File && f.Positions[0].Line == f.Positions[1].Line {
			t.Errorf("%s %s: both ends on one line: %v", f.Test, f.Kind, got[f.Test])
		}
	}
	pool, poolTest := filepath.Join(dir, "wgpool", "pool.go"), filepath.Join(dir, "wgpool", "pool_test.go")
	gauge, gaugeTest := filepath.Join(dir, "atomicmix", "gauge.go"), filepath.Join(dir, "atomicmix", "gauge_test.go")
	want := map[string]string{
		"TestPool": fmt.Sprintf("data-race add@%s wait@%s test's call of Go@%s test's call of Wait@%s",
			lineOf(t, dir, pool, "// the racing Add"), lineOf(t, dir, pool, "// the racing Wait"),
			lineOf(t, dir, poolTest, "the test's Go"), lineOf(t, dir, poolTest, "the test's Wait")),
		"TestGauge": fmt.Sprintf("data-race plain write@%s atomic store@%s test's call (write)@%s",
			lineOf(t, dir, gauge, "// the plain write"), lineOf(t, dir, gauge, "// the atomic Store"), lineOf(t, dir, gaugeTest, "g.Reset()")),
	}
	for test, w := range want {
		if len(got[test]) != 1 || got[test][0] != w {
			t.Errorf("%s: findings %q, want [%s]", test, got[test], w)
		}
	}
	if len(got["TestDial"]) != 0 {
		t.Errorf("TestDial: findings %q, want none (the dependency's own channel)", got["TestDial"])
	}
}

// fuzzAll20 fuzzes every package of the module at dir for 20 runs per test with -json and
// returns the report; the exit status must say findings.
func fuzzAll20(t *testing.T, dir string) fuzzer.Report {
	t.Helper()
	stdout, stderr, code := runGoweave(t, dir, "fuzz", "-json", "-o", t.TempDir(), "-runs", "20", "./...")
	var rep fuzzer.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decoding JSON: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if code != 1 {
		t.Errorf("exit %d, want 1 (findings)", code)
	}
	return rep
}

// findingsByTest renders each test's findings as "kind role@file:line ...", relative to dir.
func findingsByTest(dir string, rep fuzzer.Report) map[string][]string {
	got := map[string][]string{}
	for _, f := range rep.Findings {
		var ps []string
		for _, p := range f.Positions {
			ps = append(ps, fmt.Sprintf("%s@%s", p.Role, rel(dir, p.File, p.Line)))
		}
		got[f.Test] = append(got[f.Test], f.Kind+" "+strings.Join(ps, " "))
	}
	return got
}

// rel renders file:line relative to dir.
func rel(dir, file string, line int) string {
	r, err := filepath.Rel(dir, file)
	if err != nil {
		r = file
	}
	return fmt.Sprintf("%s:%d", filepath.ToSlash(r), line)
}

// lineOf is rel of the first line of file containing marker.
func lineOf(t *testing.T, dir, file, marker string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, marker) {
			return rel(dir, file, i+1)
		}
	}
	t.Fatalf("no %q in %s", marker, file)
	return ""
}
