package runtimepatch

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace"
)

// The exit flush runs the GC's goroutine leak detection on a normal exit:
// goroutines blocked on primitives nothing live can reach get status 10
// (_Gleaked) and META leakgc=1, and the analysis reports exactly those as
// proven leaks while dropping lingering ones. testdata/leakgc holds the
// programs: TestLeak* leak, TestLinger* only linger (docs/leak-detection.md).

var (
	leakgcOnce sync.Once
	leakgcBin  string
	leakgcErr  error
)

func buildLeakgc(t testing.TB) string {
	t.Helper()
	leakgcOnce.Do(func() {
		leakgcBin, leakgcErr = buildTestdata(t, "leakgc", filepath.Join(workDir, "leakgc.test"))
	})
	if leakgcErr != nil {
		failBuild(t, leakgcErr)
	}
	return leakgcBin
}

func leakgcTests(t *testing.T, bin string) []string {
	t.Helper()
	out, err := binCommand(context.Background(), bin, "-test.list", ".").Output()
	if err != nil {
		t.Fatalf("listing tests: %v", err)
	}
	var names []string
	for _, n := range strings.Fields(string(out)) {
		if strings.HasPrefix(n, "TestLeak") || strings.HasPrefix(n, "TestLinger") {
			names = append(names, n)
		}
	}
	if len(names) < 10 {
		t.Fatalf("only %d leak/linger tests in testdata/leakgc: %q", len(names), names)
	}
	return names
}

// blockedInLeakgc returns the goroutines of the trace blocked forever in an
// operation recorded in testdata/leakgc (an event that never completed; for
// Cond.Wait the newest event is its internal Unlock, so all events count).
func blockedInLeakgc(tr *trace.Trace) []trace.Goroutine {
	stuck := map[uint64]bool{}
	for _, ev := range tr.Events {
		if ev.Post == 0 && ev.Pos != 0 && strings.Contains(tr.Positions[ev.Pos-1].File, "/leakgc/") {
			stuck[ev.G] = true
		}
	}
	var out []trace.Goroutine
	for _, g := range tr.Goroutines {
		if stuck[g.ID] {
			out = append(out, g)
		}
	}
	return out
}

func TestLeakGCMarksOnlyTrueLeaks(t *testing.T) {
	if rel := testdataRelease(t); !rel.LeakGC {
		t.Skipf("%s has no GC leak detection (TestLeakTraceAlone covers it)", rel.Minor)
	}
	bin := buildLeakgc(t)
	for _, name := range leakgcTests(t, bin) {
		t.Run(name, func(t *testing.T) {
			r := record(t, bin, name, nil)
			if r.err != nil {
				t.Fatalf("test failed: %v\n%s", r.err, r.output)
			}
			if r.tr.Meta["leakgc"] != "1" {
				t.Fatalf("META leakgc = %q, want 1", r.tr.Meta["leakgc"])
			}
			blocked := blockedInLeakgc(r.tr)
			leaked := 0
			for _, g := range blocked {
				if g.Status == 10 {
					leaked++
				}
			}
			findings := analysis.Analyze(r.tr).Findings
			if strings.HasPrefix(name, "TestLeak") {
				if leaked == 0 || leaked != len(blocked) {
					t.Errorf("%d of %d blocked goroutines have status 10, want all (at least one)\n%s", leaked, len(blocked), dump(r.tr))
				}
				proven := 0
				for _, f := range findings {
					if strings.HasPrefix(f.Kind, "leak-") && strings.Contains(f.Message, "proven") {
						proven++
					}
				}
				if proven != leaked {
					t.Errorf("%d proven leak findings, want %d: %+v", proven, leaked, findings)
				}
				return
			}
			if leaked != 0 {
				t.Errorf("%d lingering goroutines marked leaked\n%s", leaked, dump(r.tr))
			}
			for _, f := range findings {
				if strings.HasPrefix(f.Kind, "leak-") {
					t.Errorf("lingering goroutine reported: %s: %s", f.Kind, f.Message)
				}
			}
		})
	}
}

// TestLeakTraceAlone: without the GC's leak detection (Go 1.25, or
// GOWEAVE_LEAKGC=0 on later releases) the trace says no "leakgc", every leak
// of testdata/leakgc the trace can show is still reported, confirmed by the
// trace alone, and the finding says so (naming the release on Go 1.25).
func TestLeakTraceAlone(t *testing.T) {
	// Leaks only the GC can prove: the goroutine that could unblock the
	// leaked one is alive (asleep), so the trace alone cannot tell.
	gcOnly := map[string]bool{"TestLeakAbandonedByLiveSender": true}
	rel := testdataRelease(t)
	var env []string
	if rel.LeakGC {
		env = append(env, "GOWEAVE_LEAKGC=0")
	}
	bin := buildLeakgc(t)
	for _, name := range leakgcTests(t, bin) {
		if !strings.HasPrefix(name, "TestLeak") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			r := record(t, bin, name, nil, env...)
			if r.err != nil {
				t.Fatalf("test failed: %v\n%s", r.err, r.output)
			}
			if v, ok := r.tr.Meta["leakgc"]; ok {
				t.Fatalf("META leakgc = %q without leak detection", v)
			}
			want := "confirmed by the trace alone"
			if !rel.LeakGC {
				want += " on " + r.tr.Meta["goversion"]
			}
			reported := 0
			for _, f := range analysis.Analyze(r.tr).Findings {
				if strings.HasPrefix(f.Kind, "leak-") {
					reported++
					if !strings.Contains(f.Message, want) {
						t.Errorf("%s finding does not say %q: %s", f.Kind, want, f.Message)
					}
				}
			}
			blocked := len(blockedInLeakgc(r.tr))
			if gcOnly[name] {
				blocked = 0
			}
			if reported != blocked {
				t.Errorf("%d leak findings for %d blocked goroutines\n%s", reported, blocked, dump(r.tr))
			}
		})
	}
}

// GOWEAVE_LEAKGC=0 turns the detection off: no status 10, no META key, and
// the analysis falls back to its partner check (which reports the worker
// whose channels live in globals).
func TestLeakGCOptOut(t *testing.T) {
	bin := buildLeakgc(t)
	r := record(t, bin, "TestLeakChanSend", nil, "GOWEAVE_LEAKGC=0")
	if _, ok := r.tr.Meta["leakgc"]; ok {
		t.Errorf("META leakgc present with GOWEAVE_LEAKGC=0")
	}
	blocked := blockedInLeakgc(r.tr)
	if len(blocked) != 1 || blocked[0].Status != 4 {
		t.Errorf("want one goroutine blocked with status 4 (waiting), got %+v", blocked)
	}
	r = record(t, bin, "TestLingerWorkerGlobal", nil, "GOWEAVE_LEAKGC=0")
	found := false
	for _, f := range analysis.Analyze(r.tr).Findings {
		found = found || f.Kind == "leak-select"
	}
	if !found {
		t.Errorf("without the GC verdict the partner check no longer reports the global worker; update docs/leak-detection.md")
	}
}

// BenchmarkExitLeakGC measures a whole recorded test process (start, a test
// that leaves one lingering goroutine, exit flush) with the exit leak
// detection on and off: the difference is its cost at exit.
func BenchmarkExitLeakGC(b *testing.B) {
	bin := buildLeakgc(b)
	// TestLingerWorkerGlobal ends with a blocked goroutine (the leak GC runs),
	// TestLingerNone with none (it is skipped).
	for _, test := range []string{"TestLingerWorkerGlobal", "TestLingerNone"} {
		for _, mode := range []string{"on", "off"} {
			env := []string{}
			if mode == "off" {
				env = append(env, "GOWEAVE_LEAKGC=0")
			}
			b.Run(test+"/leakgc="+mode, func(b *testing.B) {
				for b.Loop() {
					if r := record(b, bin, test, nil, env...); r.err != nil {
						b.Fatal(r.err)
					}
				}
			})
		}
	}
}
