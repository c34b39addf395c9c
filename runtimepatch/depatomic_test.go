package runtimepatch

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
)

// testdata/depatomic: a module (app) whose dependency (wrap, through a replace directive)
// has atomic wrapper types. Its own module, so that the dependency is not the module's code.

var (
	depOnce [2]sync.Once
	depBin  [2]string
	depErr  [2]error
)

// buildDepAtomic builds testdata/depatomic/app with the overlay (and -race if race).
func buildDepAtomic(t *testing.T, race bool) string {
	t.Helper()
	i, extra := 0, []string(nil)
	if race {
		skipRaceEmulated(t)
		i, extra = 1, []string{"-race"}
	}
	depOnce[i].Do(func() {
		out := filepath.Join(workDir, fmt.Sprintf("depatomic%d.test", i))
		depBin[i], depErr[i] = buildTestdata(t, filepath.Join("depatomic", "app"), out, extra...)
	})
	if depErr[i] != nil {
		failBuild(t, depErr[i])
	}
	return depBin[i]
}

// TestDependencyAtomicHelpers: a dependency's atomic helper inlined into the module's code
// (a wrapper type's method, as go.uber.org/atomic's) is recorded at the module's line, on
// the module's word: a typed value's method with or without the race detector, the function
// forms with it (without it the compiler turns them into instructions); a typed method
// that was not inlined into the helper (atomic.Bool.Store under -race) is found by its
// caller's frame. A dependency's function not inlined into the module records nothing,
// nor does anything in the dependency's files.
func TestDependencyAtomicHelpers(t *testing.T) {
	app := filepath.Join(testdataDir(t), "depatomic", "app")
	marks := markersIn(t, filepath.Join("depatomic", "app"))
	for _, race := range []bool{false, true} {
		tr := record(t, buildDepAtomic(t, race), "TestDependencyAtomics", nil, EnvModule+"="+app).tr
		at := func(k trace.Kind, name string) []trace.Event {
			var evs []trace.Event
			for _, e := range tr.Events {
				if e.Kind == k && tr.Position(e.Pos).String() == marks[name] {
					evs = append(evs, e)
				}
			}
			return evs
		}
		pair := func(store, load string) {
			s, l := at(trace.KindAtomicStore, store), at(trace.KindAtomicLoad, load)
			if len(s) != 1 || len(l) != 1 {
				t.Errorf("race %v: %d AtomicStores at @%s, %d AtomicLoads at @%s, want 1 each\n%s", race, len(s), store, len(l), load, dump(tr))
				return
			}
			if s[0].A == 0 || s[0].A != l[0].A || s[0].G == l[0].G || !(s[0].Pre < l[0].Pre) {
				t.Errorf("race %v: store g%d on %#x stamp %d, load g%d on %#x stamp %d: want one address, two goroutines, the store first",
					race, s[0].G, s[0].A, s[0].Pre, l[0].G, l[0].A, l[0].Pre)
			}
		}
		if race {
			pair("dep.flag.set", "dep.flag.load")
			pair("dep.bool.store", "dep.bool.load")
		} else if s := at(trace.KindAtomicStore, "dep.flag.set"); len(s) != 1 {
			// Without -race Flag.IsSet is not inlined (the overlay's typed Load, with its
			// loop, is over the inlining budget): a dependency's function, not recorded.
			t.Errorf("race false: %d AtomicStores at @dep.flag.set, want 1\n%s", len(s), dump(tr))
		}
		for _, e := range tr.Events {
			if e.Kind != trace.KindAtomicLoad && e.Kind != trace.KindAtomicStore && e.Kind != trace.KindAtomicRMW {
				continue
			}
			p := tr.Position(e.Pos).String()
			if p == marks["dep.counter.inc"] || p == marks["dep.counter.get"] || !strings.HasPrefix(p, app+string(filepath.Separator)) {
				t.Errorf("race %v: %s at %s: the dependency's own function, want nothing recorded", race, e.Kind, p)
			}
		}
	}
}
